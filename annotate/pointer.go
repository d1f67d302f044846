package annotate

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// resolvePointer follows a $ref that points inside the document ("#/a/b");
// it returns nil for a reference to another file or one that leads nowhere.
func resolvePointer(root *node, ref string) *node {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped // a fragment may percent-encode characters
	}
	if frag == "" {
		return root
	}
	if !strings.HasPrefix(frag, "/") {
		return nil // a named anchor, not a pointer
	}
	n := root
	for _, tok := range jsonpointer.Split(frag) {
		n = step(n, tok)
		if n == nil {
			return nil
		}
	}
	return n
}

// step returns the child of n named by one pointer token.
func step(n *node, tok string) *node {
	switch n.kind {
	case kindMap:
		return n.get(tok)
	case kindSeq:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.items) {
			return nil
		}
		return n.items[i]
	}
	return nil
}

package parser

import (
	"net/url"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// docFile is one file of a document set, parsed into a yaml.Node tree. The
// tree is the parser's own record of positions: kin-openapi is run without
// origin tracking (it costs as much as a second parse), and every line and
// column the parser reports is read from here by JSON pointer.
type docFile struct {
	// key identifies the file: the cleaned slash path its $refs resolve from.
	key string
	// display is the name diagnostics show (the path given on the command
	// line for the root file).
	display string
	// root is the document's top-level value node (not the DocumentNode).
	root *yaml.Node
	// repaired is set when the pre-pass changed the tree, so the bytes handed
	// to kin-openapi must be re-encoded from it.
	repaired bool
	data     []byte
}

// parseTree parses YAML or JSON bytes into the top-level value node. A
// document that starts with '{' or '[' is JSON and is read by a JSON decoder
// (YAML's reading of JSON differs: it refuses surrogate-pair escapes). Either
// way the tree is refused when its YAML aliases exceed the node budget.
func parseTree(data []byte) (*yaml.Node, error) {
	if looksLikeJSON(data) {
		return parseJSONTree(data)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errEmptyDocument
	}
	if err := checkAliasBudget(doc.Content[0]); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// mapGet returns the value node of key in a mapping node, or nil.
func mapGet(n *yaml.Node, key string) *yaml.Node {
	_, v := mapEntry(n, key)
	return v
}

// mapEntry returns the key and value nodes of key in a mapping node.
func mapEntry(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	n = unalias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// unalias follows YAML aliases to the anchored node.
func unalias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// lookup walks a JSON pointer ("/paths/~1orders/post") from n. It returns the
// node found and the deepest node reached on the way, so that a pointer into
// something the pre-pass or a conversion moved still gets a nearby line.
func lookup(n *yaml.Node, pointer string) (found, nearest *yaml.Node) {
	nearest = n
	if pointer == "" || pointer == "/" {
		return n, n
	}
	for _, tok := range jsonpointer.Split(pointer) {
		n = child(unalias(n), tok)
		if n == nil {
			return nil, nearest
		}
		nearest = n
	}
	return n, nearest
}

// child returns the member tok of a mapping or the item tok of a sequence.
func child(n *yaml.Node, tok string) *yaml.Node {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		return mapGet(n, tok)
	case yaml.SequenceNode:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	return nil
}

// splitRef cuts a $ref into its file part and its fragment pointer.
func splitRef(ref string) (file, fragment string) {
	file, fragment, _ = strings.Cut(ref, "#")
	return file, fragment
}

// isRemote reports whether the file part of a $ref names a URL rather than a
// local file.
func isRemote(file string) bool {
	return strings.Contains(file, "://") || strings.HasPrefix(file, "//")
}

// resolveFile returns the key of the file a $ref's file part names, relative
// to the file the $ref was written in. An empty file part means that file.
func resolveFile(from, file string) string {
	if file == "" {
		return from
	}
	if isRemote(file) {
		return file
	}
	// A remote document's references resolve against its URL, an absolute
	// path included: it can never name a local file.
	if isRemote(from) {
		base, err := url.Parse(from)
		rel, err2 := url.Parse(file)
		if err != nil || err2 != nil {
			return file
		}
		return base.ResolveReference(rel).String()
	}
	if path.IsAbs(file) {
		return path.Clean(file)
	}
	return path.Join(path.Dir(from), file)
}

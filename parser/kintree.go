package parser

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// kinDecodeTree hands kin-openapi the parser's own tree of a one-file
// document instead of its bytes, so the document is parsed once, not twice.
// kin-openapi decodes YAML (and JSON, which is YAML) by parsing the bytes
// into a yaml/v4 tree and decoding that through its types' UnmarshalYAML
// methods; the parser's tree is the same kind of tree, already parsed,
// repaired and overlaid. Parsing a second time cost as much as kin-openapi's
// decoding itself, and both trees were alive at once (docs/benchmarks.md,
// "Generation").
//
// It returns nil whenever it cannot vouch for giving what the bytes would
// give, and kinLoadOnce then hands over the bytes as before: a document set
// of several files (kin-openapi resolves the others from their bytes), a
// tree with YAML aliases (kin-openapi copies aliased keys and checks alias
// cycles first), a value kin-openapi refuses before decoding, and any
// decoding or reference error, so that every error the repair loop reads
// (repairFromKinError) is the one kin-openapi gives for the bytes.
func (l *loader) kinDecodeTree(kl *openapi3.Loader) *openapi3.T {
	if len(l.order) != 1 || l.opts.bytesOnly {
		return nil
	}
	var undo retags
	defer undo.restore()
	if !undo.prepare(l.root.root) {
		return nil
	}
	doc := &openapi3.T{}
	if err := l.root.root.Decode(doc); err != nil {
		return nil
	}
	// A nil location is how kin-openapi resolves a document loaded from
	// memory: the root's local references against the root itself.
	if err := kl.ResolveRefsIn(doc, nil); err != nil {
		return nil
	}
	if l.opts.trace != nil {
		l.opts.trace.treeDecoded = true
	}
	return doc
}

// retags records the tags prepare changed, so the tree the parser reads
// afterwards is the tree it parsed.
type retags []struct {
	node *yaml.Node
	tag  string
}

func (r *retags) set(n *yaml.Node, tag string) {
	*r = append(*r, struct {
		node *yaml.Node
		tag  string
	}{n, n.Tag})
	n.Tag = tag
}

func (r retags) restore() {
	for i := len(r) - 1; i >= 0; i-- {
		r[i].node.Tag = r[i].tag
	}
}

// prepare retags the tree the way kin-openapi retags the tree it parses
// before decoding it (openapi3's prepareScalars, v0.153.0): a scalar with an
// application's own tag (!md) or a timestamp is a string, and so is every
// mapping key but a merge key. It reports false, with nothing left to do but
// restore, where kin-openapi would refuse the value or copy nodes: an alias,
// a null key, infinity or NaN.
func (r *retags) prepare(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.AliasNode:
		return false
	case yaml.ScalarNode:
		return r.prepareScalar(n)
	case yaml.MappingNode:
		if !r.prepareKeys(n) {
			return false
		}
	}
	for _, c := range n.Content {
		if !r.prepare(c) {
			return false
		}
	}
	return true
}

func (r *retags) prepareScalar(n *yaml.Node) bool {
	switch {
	case n.Tag == "!!timestamp",
		strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!"):
		r.set(n, "!!str")
	case n.Tag == "!!float":
		switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
		case ".inf", ".nan":
			return false
		}
	}
	return true
}

func (r *retags) prepareKeys(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!str" || isMergeKey(k) {
			continue
		}
		if k.Tag == "!!null" {
			return false
		}
		r.set(k, "!!str")
	}
	return true
}

// isMergeKey is kin-openapi's test for YAML's << written plainly, an
// instruction rather than a name (openapi3's isMergeKey).
func isMergeKey(k *yaml.Node) bool {
	return k.Value == "<<" && k.Style == 0 && (k.Tag == "" || k.Tag == "!!str")
}

package annotate

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// kind is the shape of a node of the document tree.
type kind int

const (
	kindScalar kind = iota
	kindMap
	kindSeq
)

// node is one value of the document, in a shape shared by YAML and JSON so the
// annotation logic is written once. Positions are kept so edits can be spliced
// into the original bytes: off is the byte offset where the node starts (the
// first key of a block mapping, the `{` of a flow mapping or JSON object).
type node struct {
	kind  kind
	keys  []*node // mapping keys (scalars), in document order
	vals  []*node // mapping values, parallel to keys
	items []*node // sequence items
	value string  // scalar value
	line  int     // 1-based
	col   int     // 1-based, in characters
	off   int     // byte offset
	// flow marks a `{...}` mapping (always true for JSON).
	flow bool
	// shared marks a node reached through a YAML alias or merge key: editing
	// it would change every place that uses the anchor, so it is left alone.
	shared bool
}

// get returns the value stored under key in a mapping, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindMap {
		return nil
	}
	for i, k := range n.keys {
		if k.value == key {
			return n.vals[i]
		}
	}
	return nil
}

// has reports whether a mapping holds key.
func (n *node) has(key string) bool { return n.get(key) != nil }

// str returns the scalar stored under key, or "".
func (n *node) str(key string) string {
	v := n.get(key)
	if v == nil || v.kind != kindScalar {
		return ""
	}
	return v.value
}

// lineIndex maps between byte offsets and line/column positions of a source.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of the start of each line; starts[0] is line 1
}

func newLineIndex(src []byte) *lineIndex {
	starts := []int{0}
	for i := 0; i < len(src); {
		n := breakLen(src[i:])
		if n == 0 {
			i++
			continue
		}
		i += n
		starts = append(starts, i)
	}
	return &lineIndex{src: src, starts: starts}
}

// breakLen returns the length of the line break at the start of b, or 0.
// The YAML parser counts lines at "\r\n", "\n", a lone "\r", and the
// Unicode breaks NEL, LS and PS; positions only agree if this does too.
func breakLen(b []byte) int {
	switch {
	case len(b) == 0:
		return 0
	case b[0] == '\n':
		return 1
	case b[0] == '\r':
		if len(b) > 1 && b[1] == '\n' {
			return 2
		}
		return 1
	case bytes.HasPrefix(b, []byte("\u0085")):
		return 2
	case bytes.HasPrefix(b, []byte("\u2028")), bytes.HasPrefix(b, []byte("\u2029")):
		return 3
	}
	return 0
}

// lineStart returns the byte offset where line (1-based) starts; a line past
// the end maps to len(src).
func (x *lineIndex) lineStart(line int) int {
	if line < 1 {
		return 0
	}
	if line > len(x.starts) {
		return len(x.src)
	}
	return x.starts[line-1]
}

// offset converts a 1-based line and character column into a byte offset.
func (x *lineIndex) offset(line, col int) int {
	off := x.lineStart(line)
	for c := 1; c < col && off < len(x.src) && breakLen(x.src[off:]) == 0; c++ {
		_, size := utf8.DecodeRune(x.src[off:])
		off += size
	}
	return off
}

// lineOf returns the 1-based line holding the byte at off.
func (x *lineIndex) lineOf(off int) int {
	lo, hi := 0, len(x.starts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if x.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// position converts a byte offset into a 1-based line and character column.
func (x *lineIndex) position(off int) (line, col int) {
	line = x.lineOf(off)
	return line, utf8.RuneCount(x.src[x.lineStart(line):off]) + 1
}

// eol returns the line break the source uses first ("\n" when it has none),
// so inserted lines end like their neighbours.
func (x *lineIndex) eol() string {
	if len(x.starts) < 2 {
		return "\n"
	}
	end := x.starts[1]
	i := bytes.LastIndexAny(x.src[:end], "\r\n")
	if i < 0 {
		return "\n" // a Unicode break: write a plain newline
	}
	if x.src[i] == '\n' && i > 0 && x.src[i-1] == '\r' {
		return "\r\n"
	}
	return string(x.src[i])
}

// parseYAML parses the first document of src into the shared tree.
func parseYAML(src []byte, idx *lineIndex) (*node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("the file holds no YAML document")
	}
	c := yamlConverter{idx: idx, seen: map[*yaml.Node]*node{}}
	return c.convert(doc.Content[0], false), nil
}

// yamlConverter turns yaml.Node trees into nodes. Aliased subtrees are
// converted once and shared, which also stops alias cycles.
type yamlConverter struct {
	idx  *lineIndex
	seen map[*yaml.Node]*node
}

func (c *yamlConverter) convert(y *yaml.Node, shared bool) *node {
	if y.Kind == yaml.AliasNode && y.Alias != nil {
		return c.convertShared(y.Alias)
	}
	// An anchored node may be used elsewhere through an alias: edits to it
	// would show up there too, so it counts as shared from the start.
	shared = shared || y.Anchor != ""
	n := &node{line: y.Line, col: y.Column, off: c.idx.offset(y.Line, y.Column), shared: shared}
	switch y.Kind {
	case yaml.MappingNode:
		n.kind = kindMap
		n.flow = y.Style&yaml.FlowStyle != 0
		c.fillMap(n, y)
	case yaml.SequenceNode:
		n.kind = kindSeq
		for _, item := range y.Content {
			n.items = append(n.items, c.convert(item, shared))
		}
	default:
		n.value = y.Value
	}
	return n
}

// convertShared converts an anchored node once, marking it shared.
func (c *yamlConverter) convertShared(y *yaml.Node) *node {
	if n, ok := c.seen[y]; ok {
		return n
	}
	placeholder := &node{kind: kindScalar, shared: true}
	c.seen[y] = placeholder // an alias cycle ends here instead of recursing forever
	n := c.convert(y, true)
	c.seen[y] = n
	return n
}

// fillMap copies a mapping's entries; entries brought in by a merge key
// (`<<: *base`) come after the mapping's own and never override them.
func (c *yamlConverter) fillMap(n *node, y *yaml.Node) {
	var merged []*node
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge" {
			merged = append(merged, c.mergeSources(v)...)
			continue
		}
		n.keys = append(n.keys, c.convert(k, n.shared))
		n.vals = append(n.vals, c.convert(v, n.shared))
	}
	for _, m := range merged {
		for i, k := range m.keys {
			if !n.has(k.value) {
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, m.vals[i])
			}
		}
	}
}

// mergeSources returns the mappings a merge key's value names: one alias or a
// sequence of them.
func (c *yamlConverter) mergeSources(v *yaml.Node) []*node {
	var out []*node
	add := func(y *yaml.Node) {
		if m := c.convert(y, true); m.kind == kindMap {
			m.shared = true
			out = append(out, m)
		}
	}
	if v.Kind == yaml.SequenceNode {
		for _, item := range v.Content {
			add(item)
		}
		return out
	}
	add(v)
	return out
}

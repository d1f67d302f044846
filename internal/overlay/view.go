package overlay

import (
	"math"
	"strconv"

	"github.com/theory/jsonpath/spec"
	"go.yaml.in/yaml/v4"
)

// converter turns a yaml.Node tree into the plain values JSONPath queries
// run on: map[string]any, []any, string, int64, float64, bool and nil.
type converter struct {
	nodes   int
	limit   int // at most this many nodes
	aliased bool
	// depth is that of the node being converted (the subtree's root at 0);
	// maxDepth the deepest reached.
	depth, maxDepth int
}

// toAny converts n; false when that would take more than c.limit nodes.
func (c *converter) toAny(n *yaml.Node) (any, bool) {
	if n.Kind == yaml.AliasNode {
		c.aliased = true
		n = unalias(n)
	}
	c.nodes++
	if c.nodes > c.limit || n == nil {
		return nil, false
	}
	c.maxDepth = max(c.maxDepth, c.depth)
	c.depth++
	defer func() { c.depth-- }()
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, ok := c.toAny(n.Content[i+1])
			if !ok {
				return nil, false
			}
			m[n.Content[i].Value] = v // the last of duplicate keys wins, as in JSON
		}
		return m, true
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, ch := range n.Content {
			v, ok := c.toAny(ch)
			if !ok {
				return nil, false
			}
			s[i] = v
		}
		return s, true
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, true
		}
		return c.toAny(n.Content[0])
	}
	return scalar(n), true
}

// scalar reads a scalar by its resolved YAML tag.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, _ := strconv.ParseBool(n.Value)
		return b || n.Value == "True" || n.Value == "TRUE"
	case "!!int":
		if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	case "!!float":
		switch n.Value {
		case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
			return math.Inf(1)
		case "-.inf", "-.Inf", "-.INF":
			return math.Inf(-1)
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	}
	return n.Value
}

// nodeAt walks a normalized path from root. It returns the node there, its
// parent and the index in parent.Content of the node's key (a mapping) or
// of the node (a sequence); parent is nil for the root, n nil when the path
// leads nowhere.
func nodeAt(root *yaml.Node, p spec.NormalizedPath) (parent *yaml.Node, idx int, n *yaml.Node) {
	n = root
	for _, sel := range p {
		parent, n = unalias(n), nil
		switch s := sel.(type) {
		case spec.Name:
			if idx = lastKey(parent, string(s)); idx >= 0 {
				n = parent.Content[idx+1]
			}
		case spec.Index:
			idx = int(s)
			if parent.Kind == yaml.SequenceNode && idx >= 0 && idx < len(parent.Content) {
				n = parent.Content[idx]
			}
		}
		if n == nil {
			return nil, 0, nil
		}
	}
	return parent, idx, unalias(n)
}

// chain returns the selectors of a query that is a chain of child segments
// of one name or index selector each (`$.paths['/orders'].post`), which
// selects at most one node and can be resolved on the tree directly.
func chain(q *spec.PathQuery) ([]spec.Selector, bool) {
	var sels []spec.Selector
	for _, seg := range q.Segments() {
		ss := seg.Selectors()
		if seg.IsDescendant() || len(ss) != 1 {
			return nil, false
		}
		switch ss[0].(type) {
		case spec.Name, spec.Index:
			sels = append(sels, ss[0])
		default:
			return nil, false
		}
	}
	return sels, true
}

// resolve follows a chain of name and index selectors from root (a
// negative index counts from the end, as in RFC 9535) and returns the
// normalized path of the node reached.
func resolve(root *yaml.Node, sels []spec.Selector) (spec.NormalizedPath, bool) {
	n := root
	p := make(spec.NormalizedPath, 0, len(sels))
	for _, sel := range sels {
		n = unalias(n)
		switch s := sel.(type) {
		case spec.Name:
			i := lastKey(n, string(s))
			if i < 0 {
				return nil, false
			}
			n = n.Content[i+1]
			p = append(p, s)
		case spec.Index:
			i := int(s)
			if n.Kind != yaml.SequenceNode {
				return nil, false
			}
			if i < 0 {
				i += len(n.Content)
			}
			if i < 0 || i >= len(n.Content) {
				return nil, false
			}
			n = n.Content[i]
			p = append(p, spec.Index(i))
		}
	}
	return p, true
}

// setIn replaces (or, with remove, deletes) the value at p in the view v and
// returns v, changed.
func setIn(v any, p spec.NormalizedPath, val any, remove bool) any {
	if len(p) == 0 {
		return val
	}
	switch s := p[0].(type) {
	case spec.Name:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		child, ok := m[string(s)]
		switch {
		case !ok:
		case len(p) > 1:
			m[string(s)] = setIn(child, p[1:], val, remove)
		case remove:
			delete(m, string(s))
		default:
			m[string(s)] = val
		}
		return m
	case spec.Index:
		a, ok := v.([]any)
		i := int(s)
		if !ok || i < 0 || i >= len(a) {
			return v
		}
		switch {
		case len(p) > 1:
			a[i] = setIn(a[i], p[1:], val, remove)
		case remove:
			return append(a[:i:i], a[i+1:]...)
		default:
			a[i] = val
		}
		return a
	}
	return v
}

// unalias follows YAML aliases to the anchored node.
func unalias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

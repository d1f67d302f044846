// Package yamltree writes YAML node trees back to bytes for a reader that
// parses them again (kin-openapi), keeping their meaning.
package yamltree

import "go.yaml.in/yaml/v4"

// Encode writes the tree rooted at n as YAML. It spells the null scalars
// written as nothing ({type}, or "a:" with no value) as null first:
// yaml/v4's encoder writes an empty null as an empty quoted string, which a
// reader takes for a string (kin-openapi read a schema type of "" where the
// document said nothing; found by the parser's FuzzTreeDecodeMatchesBytes).
// n itself is left as it is: a copy is encoded, since the encoder also drops
// the tags it can infer from the nodes it is given, and callers (the parser)
// read the tree again afterwards.
func Encode(n *yaml.Node) ([]byte, error) {
	c := Clone(n)
	spellNulls(c)
	return yaml.Marshal(c)
}

// Clone deep-copies the tree rooted at n, its aliases pointing at the copies
// of their anchors.
func Clone(n *yaml.Node) *yaml.Node {
	return clone(n, map[*yaml.Node]*yaml.Node{})
}

// clone copies n; anchors records each anchored node already copied.
func clone(n *yaml.Node, anchors map[*yaml.Node]*yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if c, ok := anchors[n]; ok {
		return c
	}
	c := *n
	if n.Anchor != "" {
		anchors[n] = &c
	}
	c.Alias = clone(n.Alias, anchors)
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, child := range n.Content {
			c.Content[i] = clone(child, anchors)
		}
	}
	return &c
}

// spellNulls writes "null" into the empty null scalars under n. Aliases are
// not followed: their anchors are in the tree too.
func spellNulls(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" {
		n.Value = "null"
	}
	for _, c := range n.Content {
		spellNulls(c)
	}
}

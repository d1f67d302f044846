// Package yamltree writes YAML node trees back to bytes for a reader that
// parses them again (kin-openapi), keeping their meaning.
package yamltree

import "go.yaml.in/yaml/v4"

// Encode writes the tree rooted at n as YAML. It spells the null scalars
// written as nothing ({type}, or "a:" with no value) as null first:
// yaml/v4's encoder writes an empty null as an empty quoted string, which a
// reader takes for a string (kin-openapi read a schema type of "" where the
// document said nothing; found by the parser's FuzzTreeDecodeMatchesBytes).
// The encoder also drops the tags it can infer, so Encode changes the tree:
// encode a copy of a tree that is still read afterwards.
func Encode(n *yaml.Node) ([]byte, error) {
	spellNulls(n)
	return yaml.Marshal(n)
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

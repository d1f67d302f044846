package yamltree

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestEncodeKeepsNulls: nulls written as nothing read back as null, not as
// empty strings.
func TestEncodeKeepsNulls(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: {type}\nb:\nc: [~, null, '']\n"), &doc); err != nil {
		t.Fatal(err)
	}
	out, err := Encode(doc.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": map[string]any{"type": nil}, "b": nil, "c": []any{nil, nil, ""}}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("%q reads back as %v, want %v", out, back, want)
	}
}

// TestEncodeLeavesTheTree: the encoder drops inferable tags and Encode
// spells nulls, but on a copy; the caller's tree, aliases included, is as
// parsed.
func TestEncodeLeavesTheTree(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: &x {b: true, c}\nd: *x\n"), &doc); err != nil {
		t.Fatal(err)
	}
	before := Clone(doc.Content[0])
	if _, err := Encode(doc.Content[0]); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc.Content[0], before) {
		t.Error("Encode changed the tree it was given")
	}
	if before.Content[3].Alias != before.Content[1] {
		t.Error("the copy's alias does not point at the copy of its anchor")
	}
}

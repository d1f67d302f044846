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

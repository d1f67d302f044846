package openapi31_test

import (
	"encoding/json"
	"testing"

	"github.com/idemgen/idemgen/golden/openapi31"
	_ "github.com/idemgen/idemgen/internal/testutil"
)

// TestTypeListUnion: a 3.1 `type: [integer, string, "null"]` member decodes
// into the variant of the JSON type it meets and encodes back unchanged.
func TestTypeListUnion(t *testing.T) {
	for _, tc := range []struct {
		in            string
		integer, text bool
	}{
		{`{"priority":3,"text":"a"}`, true, false},
		{`{"priority":"urgent","text":"a"}`, false, true},
		{`{"priority":null,"text":"a"}`, false, false},
	} {
		var n openapi31.NewNote
		if err := json.Unmarshal([]byte(tc.in), &n); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		p, _ := n.Priority.Get()
		gotInt := p.Integer != nil && *p.Integer == 3
		gotText := p.String != nil && *p.String == "urgent"
		if gotInt != tc.integer || gotText != tc.text {
			t.Fatalf("%s decoded to %+v", tc.in, p)
		}
		if tc.integer || tc.text {
			out, err := json.Marshal(n)
			if err != nil || string(out) != tc.in {
				t.Fatalf("%s encoded back to %s, %v", tc.in, out, err)
			}
		}
	}
}

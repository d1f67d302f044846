package main

import (
	"encoding/json"
	"strings"
	"testing"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

const doc = `{"openapi":"3.0.3","info":{"title":"t","version":"1"},
"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}},
         "/b":{"get":{"responses":{"200":{"description":"ok"}}}}},
"components":{"schemas":{
  "A":{"type":"object","description":"an A","properties":{"b":{"$ref":"#/components/schemas/B"},"description":{"type":"string","description":"kept as a name"}}},
  "B":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/A"}}},
  "C":{"type":"string"}}}}`

// TestCutKeepsWhatTheOperationReaches: the named operation, the schemas its
// $refs reach transitively (through a cycle), nothing else; -drop-docs
// removes description texts but not a property named description.
func TestCutKeepsWhatTheOperationReaches(t *testing.T) {
	var d map[string]any
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	dropDocs = true
	defer func() { dropDocs = false }()
	ex, err := cut(d, []string{"get /a"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ex)
	got := string(b)
	for _, want := range []string{`"/a"`, `"A":`, `"B":`, `"description":{"type":"string"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("excerpt lacks %s: %s", want, got)
		}
	}
	for _, unwanted := range []string{`"/b"`, `"C":`, `an A`, `kept as a name`} {
		if strings.Contains(got, unwanted) {
			t.Errorf("excerpt has %s: %s", unwanted, got)
		}
	}
	if _, err := cut(d, []string{"post /a"}); err == nil {
		t.Error("cut of a missing operation succeeded")
	}
}

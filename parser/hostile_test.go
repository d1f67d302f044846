package parser

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestLoadRefusesAliasBomb loads a few hundred bytes of nested YAML aliases
// ("billion laughs", nine levels of nine) as Swagger 2.0, whose conversion
// used to expand them (seconds and gigabytes), and as OpenAPI 3: both are
// refused by the node budget before anything expands them.
func TestLoadRefusesAliasBomb(t *testing.T) {
	for _, name := range []string{"alias-bomb-swagger2.yaml", "alias-bomb-openapi3.yaml"} {
		t.Run(name, func(t *testing.T) {
			api, _, err := Load(filepath.Join("testdata", "hostile", name), Options{})
			if !errors.Is(err, errNodeBudget) || api != nil {
				t.Fatalf("got (%v, %v), want the node budget error", api, err)
			}
			if !strings.HasPrefix(err.Error(), filepath.Join("testdata", "hostile", name)+": YAML aliases expand") {
				t.Errorf("error does not name the file first: %v", err)
			}
		})
	}
}

// TestAliasBudgetKeepsSharedAnchors checks the budget is about expansion, not
// about anchors: a document sharing one anchor a few times loads.
func TestAliasBudgetKeepsSharedAnchors(t *testing.T) {
	spec := "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: &r\n" +
		"        '200': {description: ok}\n  /b:\n    get:\n      responses: *r\n"
	api, diags, err := LoadData("shared.yaml", []byte(spec), Options{})
	if err != nil || diags.HasErrors() || len(api.Operations) != 2 {
		t.Fatalf("got (%v, %v, %v)", api, diags, err)
	}
}

// TestToJSONValueBudget checks the expanding walk itself stops: an alias
// cycle (which the size check counts once) cannot make it run away.
func TestToJSONValueBudget(t *testing.T) {
	root, err := parseTree([]byte("a: &a {x: *a, y: *a, z: *a}\n"))
	if err != nil {
		t.Fatal(err)
	}
	budget := &expansion{left: 1000}
	toJSONValue(root, 0, budget)
	if budget.left >= 0 {
		t.Fatal("a cyclic alias expanded within a 1000-node budget")
	}
}

// TestLoadJSONSurrogatePairs loads a JSON document whose strings use
// surrogate-pair escapes, which the YAML parser refused ("found invalid
// Unicode character escape code"): it is read by a JSON decoder, with the
// lines and columns diagnostics need.
func TestLoadJSONSurrogatePairs(t *testing.T) {
	path := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "unicode.json")
	api, diags, err := Load(path, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("got (%v, %v)", err, diags)
	}
	if api.Title != "Reactions \U0001F44D API" {
		t.Errorf("title %q", api.Title)
	}
	op := api.Operations[0]
	if op.Source.Line != 11 || op.Source.Column != 15 {
		t.Errorf("operation located at %d:%d, want 11:15 (the operation object)", op.Source.Line, op.Source.Column)
	}
	root, err := parseTree([]byte("{\"a\": [1, 2.5, true, null, \"\\ud83d\\udc4d\"],\n \"b\": {}}"))
	if err != nil {
		t.Fatal(err)
	}
	items := mapGet(root, "a").Content
	want := []struct{ tag, value string }{{"!!int", "1"}, {"!!float", "2.5"}, {"!!bool", "true"}, {"!!null", "null"}, {"!!str", "\U0001F44D"}}
	for i, w := range want {
		if items[i].Tag != w.tag || items[i].Value != w.value {
			t.Errorf("item %d: %s %q, want %s %q", i, items[i].Tag, items[i].Value, w.tag, w.value)
		}
	}
	if k, _ := mapEntry(root, "b"); k.Line != 2 || k.Column != 2 {
		t.Errorf("key b at %d:%d, want 2:2", k.Line, k.Column)
	}
}

// TestParseJSONErrorsAreLocated checks a broken JSON document's error names
// the line and column, and a YAML flow mapping (which also starts with '{')
// still loads as YAML.
func TestParseJSONErrorsAreLocated(t *testing.T) {
	_, err := parseTree([]byte("{\n  \"a\": 1,\n  \"b\": ]\n}"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 3, column 8: ") {
		t.Errorf("error %v, want it located at line 3, column 8", err)
	}
	root, err := parseTree([]byte("{openapi: 3.0.3, info: {title: t}}"))
	if err != nil || scalarString(mapGet(root, "openapi")) != "3.0.3" {
		t.Errorf("YAML flow mapping: %v", err)
	}
}

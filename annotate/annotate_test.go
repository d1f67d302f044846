package annotate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/testutil"
)

// inputs are the hand-written specs under testdata/, one per layout.
var inputs = []string{"orders.yaml", "payments.json", "tabs.json", "minified.json", "crlf.yaml"}

// TestGolden pins, byte for byte, both the diff annotate prints and the file
// `annotate -w` writes.
func TestGolden(t *testing.T) {
	for _, name := range inputs {
		t.Run(name, func(t *testing.T) {
			src := readFile(t, filepath.Join("testdata", name))
			res, err := Annotate(src)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", name+".diff"), Unified(name, name, src, res.Annotated))
			testutil.Golden(t, filepath.Join("testdata", "golden", name), res.Annotated)
		})
	}
}

func TestEditsAndNotes(t *testing.T) {
	res, err := Annotate(readFile(t, "testdata/orders.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Edits {
		got = append(got, e.Method+" "+e.Path+" "+e.Value.String()+" "+e.KeyName)
	}
	want := []string{
		"GET /orders true ",
		"POST /orders keyed Idempotency-Key",
		"PUT /orders/{id} true ",
		"PATCH /orders/{id} false ",
		"POST /orders/{id}/refunds keyed idempotency-key", // through a $ref chain at path-item level
		"GET /ping true ",
		"HEAD /ping true ",
		"POST /reports false ",
		"OPTIONS /reports true ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("edits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var notes []string
	for _, n := range res.Notes {
		notes = append(notes, n.String())
	}
	wantNotes := []string{
		`62:13: (/paths/~1exports/post): parameter $ref "./common.yaml#/parameters/Key" cannot be followed inside this file; annotate the operation by hand`,
		`68:14: (/paths/~1templates/get): operation is a shared YAML anchor or alias; annotate it by hand`,
		`68:14: (/paths/~1templates/trace): operation is a shared YAML anchor or alias; annotate it by hand`,
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
}

// TestOnlyAdds checks the property every golden relies on: the rewrite parses,
// each edited operation now carries the intended value, and removing the added
// entries gives back exactly the original document.
func TestOnlyAdds(t *testing.T) {
	for _, name := range inputs {
		t.Run(name, func(t *testing.T) {
			src := readFile(t, filepath.Join("testdata", name))
			res, err := Annotate(src)
			if err != nil {
				t.Fatal(err)
			}
			checkOnlyAdds(t, src, res)
		})
	}
}

func checkOnlyAdds(t *testing.T, src []byte, res *Result) {
	t.Helper()
	before, after := decode(t, src), decode(t, res.Annotated)
	paths := after["paths"].(map[string]any)
	for _, e := range res.Edits {
		op := paths[e.Path].(map[string]any)[strings.ToLower(e.Method)].(map[string]any)
		if got, want := op["x-idempotent"], wantValue(e); !equalJSON(got, want) {
			t.Errorf("%s %s: x-idempotent = %v, want %v", e.Method, e.Path, got, want)
		}
		delete(op, "x-idempotent")
	}
	if !equalJSON(before, after) {
		t.Errorf("the rewrite changed more than the added x-idempotent entries")
	}
	again, err := Annotate(res.Annotated)
	if err != nil || len(again.Edits) != 0 {
		t.Errorf("annotating the output again: %d edits, %v; want none", len(again.Edits), err)
	}
}

func wantValue(e Edit) any {
	switch e.Value {
	case Keyed:
		return map[string]any{"key": map[string]any{"in": "header", "name": e.KeyName}}
	case False:
		return false
	}
	return true
}

// decode reads YAML or JSON into plain maps (YAML is a superset of the JSON
// files here, but tabs.json needs the JSON decoder).
func decode(t *testing.T, src []byte) map[string]any {
	t.Helper()
	var v map[string]any
	var err error
	if looksLikeJSON(src) {
		err = json.Unmarshal(src, &v)
	} else {
		err = yaml.Unmarshal(src, &v)
	}
	if err != nil {
		t.Fatalf("decoding: %v", err)
	}
	return v
}

func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

func TestNothingToDo(t *testing.T) {
	src := []byte("openapi: 3.0.0\npaths:\n  /a:\n    get:\n      x-idempotent: false\n    post:\n      x-idempotent: true\n")
	res, err := Annotate(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edits) != 0 || !bytes.Equal(res.Annotated, src) || Unified("a", "a", src, res.Annotated) != nil {
		t.Errorf("an annotated document changed: %+v", res.Edits)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"yaml syntax", "paths: [\n", "parsing YAML"},
		{"json syntax", `{"paths": {"/a": [}}`, "parsing JSON at line 1"},
		{"trailing json", `{"paths": {}} {}`, "unexpected data after"},
		{"no paths", "openapi: 3.0.0\ninfo: {}\n", ErrNotOpenAPI.Error()},
		{"paths not a map", "paths: [a, b]\n", ErrNotOpenAPI.Error()},
		{"scalar document", "just text\n", ErrNotOpenAPI.Error()},
		{"empty", "", "no YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Annotate([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := Annotate([]byte("openapi: 3.0.0\n")); !errors.Is(err, ErrNotOpenAPI) {
		t.Errorf("error = %v, want ErrNotOpenAPI", err)
	}
}

// TestRealSpecs annotates the real-world documents: each rewrite must parse,
// add exactly what it reports and nothing else (Annotate's own read-back
// check, which the small inputs above test against an independent decoder),
// and be a fixed point.
func TestRealSpecs(t *testing.T) {
	dir := testutil.RealSpecs(t, "skipping the real-world specs under -short")
	files, err := filepath.Glob(filepath.Join(dir, "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src := readFile(t, f)
			res, err := Annotate(src)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Edits) == 0 {
				t.Fatal("no edits on a real spec without annotations")
			}
			again, err := Annotate(res.Annotated)
			if err != nil || len(again.Edits) != 0 {
				t.Errorf("annotating the output again: %v, %d edits; want none", err, len(again.Edits))
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyCatchesBadSplices feeds verify rewrites that went wrong in the
// ways a splicer bug would: each must be refused.
func TestVerifyCatchesBadSplices(t *testing.T) {
	src := []byte("paths:\n  /a:\n    get:\n      summary: x\n")
	orig, err := parseYAML(src, newLineIndex(src))
	if err != nil {
		t.Fatal(err)
	}
	edit := []Edit{{Method: "GET", Path: "/a", Value: True}}
	bad := map[string]string{
		"unparsable":     "paths:\n  /a:\n    get:\n  x-idempotent: true\n      summary: x\n",
		"wrong level":    "paths:\n  /a:\n    x-idempotent: true\n    get:\n      summary: x\n",
		"wrong value":    "paths:\n  /a:\n    get:\n      x-idempotent: false\n      summary: x\n",
		"other change":   "paths:\n  /a:\n    get:\n      x-idempotent: true\n      summary: y\n",
		"swallowed line": "paths:\n  /a:\n    get:\n      x-idempotent: true\n",
	}
	for name, out := range bad {
		if err := verify(orig, []byte(out), false, edit, nil, nil, nil); !errors.Is(err, ErrUnsafeLayout) {
			t.Errorf("%s: verify = %v, want ErrUnsafeLayout", name, err)
		}
	}
	good := "paths:\n  /a:\n    get:\n      x-idempotent: true\n      summary: x\n"
	if err := verify(orig, []byte(good), false, edit, nil, nil, nil); err != nil {
		t.Errorf("good rewrite refused: %v", err)
	}
}

// TestFlowStyleYAML: a YAML document written in flow style starts like JSON
// but is not; it is annotated as YAML.
func TestFlowStyleYAML(t *testing.T) {
	src := []byte("{openapi: 3.0.3, paths: {/a: {get: {responses: {}}, post: {responses: {}}}}}\n")
	res, err := Annotate(src)
	if err != nil {
		t.Fatal(err)
	}
	want := "{openapi: 3.0.3, paths: {/a: {get: {x-idempotent: true, responses: {}}, post: {x-idempotent: false, responses: {}}}}}\n"
	if string(res.Annotated) != want {
		t.Errorf("got  %s\nwant %s", res.Annotated, want)
	}
}

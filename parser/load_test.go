package parser

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

func TestLoadRefusesWhatIsNotOpenAPI(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"list.yaml", "- a\n- b\n", "list.yaml: not an OpenAPI document (the top level is not an object)"},
		{"other.yaml", "name: x\n", "other.yaml: not an OpenAPI document (no `openapi` or `swagger` field)"},
		{"old.yaml", "swagger: '1.2'\n", `old.yaml: Swagger version "1.2" is not supported (2.0 is)`},
		{"v4.yaml", "openapi: 4.0.0\n", `v4.yaml: OpenAPI version "4.0.0" is not supported (3.0.x, 3.1.x, 3.2.x and Swagger 2.0 are)`},
		{"broken.yaml", "openapi: [\n", "broken.yaml: not a YAML or JSON document"},
		{"empty.yaml", "", "empty.yaml: not a YAML or JSON document: empty document"},
	}
	for _, tt := range tests {
		api, diags, err := LoadData(tt.name, []byte(tt.data), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || api != nil || diags != nil {
			t.Errorf("%s: got (%v, %v, %v), want error %q", tt.name, api, diags, err, tt.want)
		}
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), Options{}); err == nil || !strings.Contains(err.Error(), "missing.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestLoadKinFailureIsAnError checks the last resort: a document the
// pre-pass cannot make loadable gives an error diagnostic and an empty API,
// not a Go error (the file was an OpenAPI document; lint reports it).
func TestLoadKinFailureIsAnError(t *testing.T) {
	api, diags, err := LoadData("self.yaml", []byte("openapi: 3.0.0\ninfo: &i {title: t, version: '1', x-self: *i}\npaths: {}\n"), Options{})
	if err != nil || api == nil {
		t.Fatalf("got (%v, %v)", api, err)
	}
	if len(diags) != 1 || diags[0].Rule != ruleLoad || diags[0].Severity != ir.SeverityError {
		t.Errorf("diagnostics %v", diags)
	}
}

// TestRemoteRefs serves a schema from a loopback server: refused by
// default (an error, the reference replaced), followed when allowed.
func TestRemoteRefs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/order.yaml" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("Order:\n  type: object\n  properties:\n    id: {type: string}\n"))
	}))
	defer srv.Close()
	spec := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /o:\n    get:\n      operationId: getO\n" +
		"      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n" +
		"              schema: {$ref: '" + srv.URL + "/order.yaml#/Order'}\n"
	api, diags, err := LoadData("remote.yaml", []byte(spec), Options{})
	if err != nil || len(diags) != 1 || diags[0].Rule != ruleRemoteRef || !diags.HasErrors() {
		t.Fatalf("refused: got %v %v", diags, err)
	}
	if k := api.Operations[0].Responses[0].Content[0].Schema.Kind; k != ir.KindAny {
		t.Errorf("refused reference became %s, want any", k)
	}
	api, diags, err = LoadData("remote.yaml", []byte(spec), Options{AllowRemoteRefs: true})
	if err != nil || len(diags) != 0 {
		t.Fatalf("allowed: got %v %v", diags, err)
	}
	s := api.Operations[0].Responses[0].Content[0].Schema
	if s.Kind != ir.KindRef || s.Ref.GoName != "Order" || len(s.Ref.Properties) != 1 {
		t.Errorf("allowed reference: %+v", s)
	}
}

// TestMultiFileSources checks that elements defined in referenced files
// carry those files' names and lines.
func TestMultiFileSources(t *testing.T) {
	root := filepath.Join("..", "testdata", "specs", "multifile", "api.yaml")
	api, diags, err := Load(root, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	var create *ir.Operation
	for _, op := range api.Operations {
		if op.ID == "createWidget" {
			create = op
		}
	}
	wantFile := filepath.ToSlash(filepath.Join("..", "testdata", "specs", "multifile", "paths", "widgets.yaml"))
	if create == nil || create.Source.File != wantFile || create.Source.Pointer != "/post" || create.Source.Line != 12 {
		t.Fatalf("createWidget source %+v", create.Source)
	}
	if create.Retry.IdempotencySource.File != wantFile || create.Retry.IdempotencySource.Line != 15 {
		t.Errorf("contract source %+v", create.Retry.IdempotencySource)
	}
	for _, s := range api.Schemas {
		if s.GoName == "Widget" && !strings.HasSuffix(s.Source.File, "schemas/widget.yaml") {
			t.Errorf("Widget declared at %+v", s.Source)
		}
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal(err)
	}
}

// TestJSONDuplicateKeys loads JSON that YAML refuses: the last definition
// wins, as in JSON parsers, with a located warning.
func TestJSONDuplicateKeys(t *testing.T) {
	spec := `{"openapi": "3.0.3", "info": {"title": "first", "version": "1"},
 "paths": {"/a": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}}},
 "info": {"title": "second", "version": "2"}}`
	api, diags, err := LoadData("dup.json", []byte(spec), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if api.Title != "second" || len(api.Operations) != 1 {
		t.Errorf("title %q, %d operations", api.Title, len(api.Operations))
	}
	want := `dup.json:3:2: (/info): member "info" is defined twice; the last definition is used`
	if len(diags) != 1 || diags[0].String() != want {
		t.Errorf("diagnostics %v, want %s", diags, want)
	}
}

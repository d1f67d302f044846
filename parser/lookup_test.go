package parser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
)

// TestLookupIR reads testdata/specs/lookup.yaml: each x-lookup resolves to
// its lookup operation and that operation's key parameter, with the found
// pointer as written ("" when absent), the body member that holds the key
// and the default match (that member, in the found value), and an
// operation without x-lookup has none.
func TestLookupIR(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "lookup.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	api, diags, err := LoadData("lookup.yaml", data, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("LoadData: %v %v", err, diags.Errors())
	}
	ops := map[string]*ir.Operation{}
	for _, op := range api.Operations {
		ops[op.ID] = op
	}
	for id, want := range map[string]struct{ target, in, key, found, member, match string }{
		"createPayment":  {"listPayments", "query", "client_reference", "/data/0", "client_reference", "/client_reference"},
		"createRefund":   {"getRefundByReference", "path", "reference", "", "reference", "/reference"},
		"createTransfer": {"listTransfers", "query", "reference", "/data/0", "reference", "/meta/reference"},
	} {
		lk := ops[id].Lookup
		if lk == nil {
			t.Errorf("%s: no lookup", id)
			continue
		}
		if lk.Operation != ops[want.target] || lk.Key == nil || string(lk.Key.In) != want.in || lk.Key.Name != want.key || lk.Found != want.found {
			t.Errorf("%s: lookup %s %+v found %q, want %+v", id, lk.Operation.ID, lk.Key, lk.Found, want)
		}
		if lk.Member != want.member || lk.Match != want.match {
			t.Errorf("%s: member %q, match %q; want %q, %q", id, lk.Member, lk.Match, want.member, want.match)
		}
		if lk.Key != nil && !containsParam(lk.Operation.Params, lk.Key) {
			t.Errorf("%s: the key is not a parameter of %s", id, lk.Operation.ID)
		}
	}
	if ops["capturePayment"].Lookup != nil || ops["listPayments"].Lookup != nil {
		t.Error("an operation without x-lookup has a lookup")
	}
}

func containsParam(ps []*ir.Parameter, p *ir.Parameter) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// TestLookupMember: the body member that carries an unsafe call's key is
// a member named exactly like the lookup's key parameter, in a required
// JSON (else form) body, whose value is always one string: a string that
// is not a date or bytes, an integer, or an enum of either, never null.
func TestLookupMember(t *testing.T) {
	for _, tc := range []struct {
		name, body, member string
	}{
		{"string", `{required: true, content: {application/json: {schema: {type: object, properties: {ref: {type: string}}}}}}`, "ref"},
		{"integer", `{required: true, content: {application/json: {schema: {type: object, properties: {ref: {type: integer}}}}}}`, "ref"},
		{"enum", `{required: true, content: {application/json: {schema: {type: object, properties: {ref: {type: string, enum: [a, b]}}}}}}`, "ref"},
		{"form", `{required: true, content: {application/x-www-form-urlencoded: {schema: {type: object, properties: {ref: {type: string}}}}}}`, "ref"},
		{"vendor json", `{required: true, content: {application/vnd.x+json: {schema: {type: object, properties: {ref: {type: string}}}}}}`, "ref"},
		{"optional body", `{content: {application/json: {schema: {type: object, properties: {ref: {type: string}}}}}}`, ""},
		{"nullable", `{required: true, content: {application/json: {schema: {type: object, properties: {ref: {type: string, nullable: true}}}}}}`, ""},
		{"date-time", `{required: true, content: {application/json: {schema: {type: object, properties: {ref: {type: string, format: date-time}}}}}}`, ""},
		{"number", `{required: true, content: {application/json: {schema: {type: object, properties: {ref: {type: number}}}}}}`, ""},
		{"other name", `{required: true, content: {application/json: {schema: {type: object, properties: {reference: {type: string}}}}}}`, ""},
		{"text", `{required: true, content: {text/plain: {schema: {type: string}}}}`, ""},
	} {
		spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /things:
    post:
      operationId: createThing
      x-idempotent: false
      x-lookup: {operationId: findThing, key: {in: query, name: ref}, match: /ref}
      requestBody: ` + tc.body + `
      responses: {"201": {description: c, content: {application/json: {schema: {type: object, properties: {ref: {type: string}}}}}}}
    get:
      operationId: findThing
      parameters: [{name: ref, in: query, schema: {type: string}}]
      responses: {"200": {description: f, content: {application/json: {schema: {type: object, properties: {ref: {type: string}}}}}}}
`
		api, diags, err := LoadData("t.yaml", []byte(spec), Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: %v %v", tc.name, err, diags.Errors())
		}
		for _, op := range api.Operations {
			if op.ID == "createThing" && (op.Lookup == nil || op.Lookup.Member != tc.member) {
				t.Errorf("%s: lookup %+v, want the member %q", tc.name, op.Lookup, tc.member)
			}
		}
	}
}

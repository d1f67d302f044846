package parser

import (
	"slices"
	"strings"
	"testing"
)

// identitySpec declares one operationId on two bindings (Temporal's
// document does so 105 times), two that differ only in case, operations
// without one (one of whose derived name another operation uses as its
// operationId), an operationId spelled like another operation's binding,
// and operations named like the methods every generated Client has.
const identitySpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /api/v1/widgets:
    post: {operationId: CreateWidget, responses: {"201": {description: ok}}}
    get: {operationId: listWidgets, responses: {"200": {description: ok}}}
  /cluster/widgets:
    post: {operationId: CreateWidget, responses: {"201": {description: ok}}}
  /things:
    post: {operationId: createThing, responses: {"201": {description: ok}}}
    put: {operationId: CreateThing, responses: {"200": {description: ok}}}
  /gadgets:
    get: {responses: {"200": {description: ok}}}
    post: {responses: {"201": {description: ok}}}
  /other:
    get: {operationId: postGadgets, responses: {"200": {description: ok}}}
  /shared_items#app_items:
    get: {operationId: "get /lookup", responses: {"200": {description: ok}}}
  /resend:
    post: {operationId: resendIntent, responses: {"201": {description: ok}}}
  /lookup:
    get: {operationId: lookupIntent, responses: {"200": {description: ok}}}
  /with:
    post: {operationId: with_server_url, responses: {"200": {description: ok}}}
`

// TestOperationIdentity: an operationId no other operation shares, compared
// without case, is the operation's identity, and so is the name derived
// from the method and path of one that has none; every other operation is
// named by its binding ("POST /cluster/widgets", the path as the document
// writes it). Identities are unique, OperationID keeps what the document
// says, and Go names never take a method the generated Client has itself.
func TestOperationIdentity(t *testing.T) {
	api, diags, err := LoadData("ids.yaml", []byte(identitySpec), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	type ident struct{ id, operationID, goName string }
	want := map[string]ident{
		"POST /api/v1/widgets":        {"POST /api/v1/widgets", "CreateWidget", "CreateWidget"},
		"POST /cluster/widgets":       {"POST /cluster/widgets", "CreateWidget", "CreateWidget2"},
		"GET /api/v1/widgets":         {"listWidgets", "listWidgets", "ListWidgets"},
		"POST /things":                {"POST /things", "createThing", "CreateThing"},
		"PUT /things":                 {"PUT /things", "CreateThing", "CreateThing2"},
		"GET /gadgets":                {"getGadgets", "", "GetGadgets"},
		"POST /gadgets":               {"POST /gadgets", "", "PostGadgets"},
		"GET /other":                  {"GET /other", "postGadgets", "PostGadgets2"},
		"GET /shared_items#app_items": {"GET /shared_items#app_items", "get /lookup", "GetLookup"},
		"POST /resend":                {"resendIntent", "resendIntent", "ResendIntent2"},
		"GET /lookup":                 {"lookupIntent", "lookupIntent", "LookupIntent2"},
		"POST /with":                  {"with_server_url", "with_server_url", "WithServerURL2"},
	}
	seen := map[string]bool{}
	for _, op := range api.Operations {
		binding := op.Method + " " + op.Path
		if op.Path == "/shared_items" {
			binding += "#app_items"
		}
		got := ident{op.ID, op.OperationID, op.GoName}
		if got != want[binding] {
			t.Errorf("%s: got %+v, want %+v", binding, got, want[binding])
		}
		if seen[op.ID] {
			t.Errorf("identity %q given twice", op.ID)
		}
		seen[op.ID] = true
	}
	if len(api.Operations) != len(want) {
		t.Errorf("%d operations, want %d", len(api.Operations), len(want))
	}
}

// TestLookupNamesAnOperationByIdentity: x-lookup names its operation by
// operationId (where two share one, the first by Go name answers) or by
// identity, which tells the two bindings apart.
func TestLookupNamesAnOperationByIdentity(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /api/v1/widgets/{id}:
    get:
      operationId: GetWidget
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object}}}}}
  /cluster/widgets/{id}:
    get:
      operationId: GetWidget
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object}}}}}
  /api/v1/widgets:
    post:
      operationId: createWidget
      x-idempotent: false
      x-lookup: {operationId: GetWidget, key: {in: path, name: id}}
      parameters: [{name: id, in: query, required: true, schema: {type: string}}]
      responses: {"201": {description: ok}}
  /cluster/widgets:
    post:
      operationId: createClusterWidget
      x-idempotent: false
      x-lookup: {operationId: "GET /cluster/widgets/{id}", key: {in: path, name: id}}
      parameters: [{name: id, in: query, required: true, schema: {type: string}}]
      responses: {"201": {description: ok}}
`
	api, diags, err := LoadData("lookup.yaml", []byte(spec), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	want := map[string]string{"createWidget": "GET /api/v1/widgets/{id}", "createClusterWidget": "GET /cluster/widgets/{id}"}
	for _, op := range api.Operations {
		if w, ok := want[op.ID]; ok && (op.Lookup == nil || op.Lookup.Operation.ID != w) {
			t.Errorf("%s: lookup %+v, want %s", op.ID, op.Lookup, w)
		}
	}
}

// TestSharedOperationIDWarns: an operationId another operation shares
// (OpenAPI requires it unique) is a warning at each operation that is named
// by its binding instead, naming the others; a shared derived name (no
// operationId) is an info finding; a unique operationId says nothing.
func TestSharedOperationIDWarns(t *testing.T) {
	_, diags, err := LoadData("ids.yaml", []byte(identitySpec), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		if d.Rule == ruleOperationIdentity {
			got = append(got, d.Severity.String()+" "+d.Pointer+": "+d.Message)
		}
	}
	want := []string{
		`warning /paths/~1api~1v1~1widgets/post/operationId: operationId "CreateWidget" is also that of POST /cluster/widgets; OpenAPI requires it unique, so this operation is named by its binding, "POST /api/v1/widgets", in journals, attempt records and ledgers`,
		`warning /paths/~1cluster~1widgets/post/operationId: operationId "CreateWidget" is also that of POST /api/v1/widgets; OpenAPI requires it unique, so this operation is named by its binding, "POST /cluster/widgets", in journals, attempt records and ledgers`,
		`warning /paths/~1things/post/operationId: operationId "createThing" is also that of PUT /things (compared without case); OpenAPI requires it unique, so this operation is named by its binding, "POST /things", in journals, attempt records and ledgers`,
		`warning /paths/~1things/put/operationId: operationId "CreateThing" is also that of POST /things (compared without case); OpenAPI requires it unique, so this operation is named by its binding, "PUT /things", in journals, attempt records and ledgers`,
		`info /paths/~1gadgets/post: the name derived for this operation, "postGadgets", is also that of GET /other; it is named by its binding, "POST /gadgets", in journals, attempt records and ledgers`,
		`warning /paths/~1other/get/operationId: operationId "postGadgets" is also that of POST /gadgets; OpenAPI requires it unique, so this operation is named by its binding, "GET /other", in journals, attempt records and ledgers`,
		`warning /paths/~1shared_items#app_items/get/operationId: operationId "get /lookup" reads like the binding of GET /lookup; this operation is named by its own binding, "GET /shared_items#app_items", in journals, attempt records and ledgers`,
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

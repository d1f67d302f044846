package annotate

import (
	"testing"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// agreeSpec holds one operation per rule annotate and the parser share
// (ir.InferredSafety, ir.IsKeyHeader): the QUERY method, a key header in
// lower case, one reached through a $ref, one declared on the path item, one
// on a PUT (the header keys it whatever the method), a POST and a PATCH
// without a key, CONNECT.
const agreeSpec = `openapi: 3.1.0
info: {title: agree, version: "1"}
paths:
  /search:
    query:
      operationId: searchThings
      responses: {"200": {description: ok}}
    get:
      operationId: listThings
      responses: {"200": {description: ok}}
  /orders:
    post:
      operationId: createOrder
      parameters:
        - {name: idempotency-key, in: header, schema: {type: string}}
      responses: {"201": {description: ok}}
    patch:
      operationId: patchOrders
      responses: {"200": {description: ok}}
  /payments:
    post:
      operationId: createPayment
      parameters:
        - $ref: '#/components/parameters/Key'
      responses: {"201": {description: ok}}
  /refunds:
    parameters:
      - {name: IDEMPOTENCY-KEY, in: header, schema: {type: string}}
    post:
      operationId: createRefund
      responses: {"201": {description: ok}}
  /orders/{id}:
    put:
      operationId: replaceOrder
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
  /tunnel:
    connect:
      operationId: openTunnel
      responses: {"200": {description: ok}}
    delete:
      operationId: closeTunnel
      responses: {"204": {description: ok}}
components:
  parameters:
    Key: {name: Idempotency-Key, in: header, schema: {type: string}}
`

// TestAgreesWithParser: every operation annotate writes x-idempotent on
// resolves, once annotated, to the safety (and key) the parser inferred
// before, so annotating never changes what a generated client does.
func TestAgreesWithParser(t *testing.T) {
	res, err := Annotate([]byte(agreeSpec))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes: %v", res.Notes)
	}
	before := contracts(t, []byte(agreeSpec))
	after := contracts(t, res.Annotated)
	if len(res.Edits) != len(before) {
		t.Errorf("%d edits for %d operations:\n%s", len(res.Edits), len(before), res.Annotated)
	}
	want := map[string]ir.Safety{
		"searchThings": ir.Idempotent, "listThings": ir.Idempotent, "closeTunnel": ir.Idempotent,
		"createOrder": ir.Keyed, "createPayment": ir.Keyed, "createRefund": ir.Keyed, "replaceOrder": ir.Keyed,
		"patchOrders": ir.Unsafe, "openTunnel": ir.Unsafe,
	}
	for id, b := range before {
		a := after[id]
		if b.Safety != want[id] {
			t.Errorf("%s: parser infers %v, want %v", id, b.Safety, want[id])
		}
		if a.Kind == ir.IdempotencyInferred {
			t.Errorf("%s: not annotated:\n%s", id, res.Annotated)
		}
		if a.Safety != b.Safety || a.KeyName != b.KeyName || a.Summary != b.Summary {
			t.Errorf("%s: annotated %v %q (%s), inferred %v %q (%s)", id, a.Safety, a.KeyName, a.Summary, b.Safety, b.KeyName, b.Summary)
		}
	}
}

// contracts loads a document with the parser and returns each operation's
// contract by operationId.
func contracts(t *testing.T, doc []byte) map[string]ir.RetryContract {
	t.Helper()
	api, diags, err := parser.LoadData("agree.yaml", doc, parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("parser: %v %v", err, diags)
	}
	out := map[string]ir.RetryContract{}
	for _, op := range api.Operations {
		out[op.ID] = op.Retry
	}
	return out
}

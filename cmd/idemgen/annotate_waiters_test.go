package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// proposeSpec has a resource with a status enum that a POST creates
// (payments), one that no POST creates (refunds), and one whose status
// has no success state (disputes).
const proposeSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /payments:
    post:
      operationId: createPayment
      x-idempotent: false
      responses:
        "201": {description: c, content: {application/json: {schema: {$ref: "#/components/schemas/Payment"}}}}
  /payments/{id}:
    get:
      operationId: getPayment
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: p, content: {application/json: {schema: {$ref: "#/components/schemas/Payment"}}}}
  /refunds/{id}:
    get:
      operationId: getRefund
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: r, content: {application/json: {schema: {$ref: "#/components/schemas/Payment"}}}}
  /disputes:
    post:
      operationId: createDispute
      x-idempotent: false
      responses:
        "201": {description: c, content: {application/json: {schema: {$ref: "#/components/schemas/Dispute"}}}}
  /disputes/{id}:
    get:
      operationId: getDispute
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: d, content: {application/json: {schema: {$ref: "#/components/schemas/Dispute"}}}}
components:
  schemas:
    Payment:
      type: object
      properties:
        id: {type: string}
        status: {type: string, enum: [pending, succeeded, failed, canceled]}
    Dispute:
      type: object
      properties:
        state: {type: string, enum: [open, under_review]}
`

// TestAnnotateProposesWaiters: annotate -w adds x-waiters to the GET of a
// resource a POST creates whose status enum has a success state, and to
// nothing else; the parser reads the waiter back and lint passes --strict.
func TestAnnotateProposesWaiters(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "api.yaml")
	writeFile(t, spec, proposeSpec)
	r := runFake(t, &fake{}, "annotate", "-w", spec)
	if r.code != exitOK || !strings.Contains(r.stderr, "added the proposed x-waiters to 1 operation") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	api, diags, err := parser.Load(spec, parser.Options{})
	if err != nil || diags.HasErrors() || len(diags.Warnings()) > 0 {
		t.Fatalf("reloading: %v\n%v", err, diags)
	}
	got := map[string][]*ir.Waiter{}
	for _, op := range api.Operations {
		for _, w := range op.Waiters {
			w.Source = ir.Source{}
			got[op.ID] = append(got[op.ID], w)
		}
	}
	want := map[string][]*ir.Waiter{"getPayment": {{Name: "PaymentSucceeded", GoName: "PaymentSucceeded",
		Until:  ir.WaitMatch{Pointer: "/status", In: []string{"succeeded"}},
		FailOn: &ir.WaitMatch{Pointer: "/status", In: []string{"failed", "canceled"}}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waiters after annotate: %v, want %v", got, want)
	}
	// A second run proposes nothing more.
	if r := runFake(t, &fake{}, "annotate", spec); r.code != exitOK || r.stdout != "" {
		t.Errorf("second run: exit %d, diff %q", r.code, r.stdout)
	}
}

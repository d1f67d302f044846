package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/parser"
)

// lookupProposeSpec has a keyed create found by its key in a list
// (payments), an unsafe create found by the reference its body carries
// (refunds), one whose GET takes a reference the body does not carry
// (disputes), one whose GET answers a value without the reference, so
// nothing could tell its result from another's (chargebacks), and one
// whose GET needs another required parameter (transfers).
const lookupProposeSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /payments:
    post:
      operationId: createPayment
      parameters: [{name: Idempotency-Key, in: header, schema: {type: string}}]
      responses:
        "201": {description: c, content: {application/json: {schema: {$ref: "#/components/schemas/Payment"}}}}
    get:
      operationId: listPayments
      parameters: [{name: idempotency_key, in: query, schema: {type: string}}]
      responses:
        "200": {description: l, content: {application/json: {schema: {$ref: "#/components/schemas/PaymentList"}}}}
  /refunds:
    post:
      operationId: createRefund
      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {reference: {type: string}}}}}}
      responses:
        "201": {description: c, content: {application/json: {schema: {$ref: "#/components/schemas/Refund"}}}}
  /refunds/by-reference/{reference}:
    get:
      operationId: getRefundByReference
      parameters: [{name: reference, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: r, content: {application/json: {schema: {$ref: "#/components/schemas/Refund"}}}}
  /disputes:
    post:
      operationId: createDispute
      requestBody: {content: {application/json: {schema: {type: object, properties: {amount: {type: integer}}}}}}
      responses:
        "201": {description: c, content: {application/json: {schema: {$ref: "#/components/schemas/Refund"}}}}
  /disputes/{reference}:
    get:
      operationId: getDispute
      parameters: [{name: reference, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: d, content: {application/json: {schema: {$ref: "#/components/schemas/Refund"}}}}
  /chargebacks:
    post:
      operationId: createChargeback
      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {reference: {type: string}}}}}}
      responses:
        "201": {description: c, content: {application/json: {schema: {$ref: "#/components/schemas/Invoice"}}}}
  /chargebacks/{reference}:
    get:
      operationId: getChargeback
      parameters: [{name: reference, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: d, content: {application/json: {schema: {$ref: "#/components/schemas/Invoice"}}}}
  /transfers:
    post:
      operationId: createTransfer
      requestBody: {content: {application/json: {schema: {type: object, properties: {client_reference: {type: string}}}}}}
      responses:
        "201": {description: c, content: {application/json: {schema: {$ref: "#/components/schemas/Refund"}}}}
    get:
      operationId: findTransfer
      parameters:
        - {name: client_reference, in: query, schema: {type: string}}
        - {name: account, in: query, required: true, schema: {type: string}}
      responses:
        "200": {description: d, content: {application/json: {schema: {$ref: "#/components/schemas/Refund"}}}}
components:
  schemas:
    Payment: {type: object, properties: {id: {type: string}, idempotency_key: {type: string}}}
    PaymentList: {type: object, properties: {data: {type: array, items: {$ref: "#/components/schemas/Payment"}}}}
    Refund: {type: object, properties: {id: {type: string}, reference: {type: string}, client_reference: {type: string}}}
    Invoice: {type: object, properties: {id: {type: string}}}
`

// TestAnnotateProposesLookups: annotate -w adds x-lookup to the keyed
// create whose list takes its key (with match, since no body member gives
// a default), and to the unsafe create whose GET takes the reference its
// body carries, and to nothing else; the parser resolves both without a
// warning; a second run proposes nothing.
func TestAnnotateProposesLookups(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "api.yaml")
	writeFile(t, spec, lookupProposeSpec)
	r := runFake(t, &fake{}, "annotate", "-w", spec)
	if r.code != exitOK || !strings.Contains(r.stderr, "added the proposed x-lookup to 2 operations") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if text := readFile(t, spec); !strings.Contains(text, "found: /data/0, match: /idempotency_key}") {
		t.Errorf("the keyed create's x-lookup has no match:\n%s", text)
	}
	api, diags, err := parser.Load(spec, parser.Options{})
	if err != nil || diags.HasErrors() || len(diags.Warnings()) > 0 {
		t.Fatalf("reloading: %v\n%v", err, diags)
	}
	got := map[string]string{}
	for _, op := range api.Operations {
		if lk := op.Lookup; lk != nil {
			got[op.ID] = lk.Operation.ID + " " + string(lk.Key.In) + ":" + lk.Key.Name + " " + lk.Found + " " + lk.Match
		}
	}
	want := map[string]string{
		"createPayment": "listPayments query:idempotency_key /data/0 /idempotency_key",
		"createRefund":  "getRefundByReference path:reference  /reference",
	}
	if len(got) != len(want) || got["createPayment"] != want["createPayment"] || got["createRefund"] != want["createRefund"] {
		t.Errorf("lookups after annotate: %q, want %q", got, want)
	}
	if r := runFake(t, &fake{}, "annotate", spec); r.code != exitOK || r.stdout != "" {
		t.Errorf("second run: exit %d, diff %q", r.code, r.stdout)
	}
}

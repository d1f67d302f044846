package parser

import (
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

func loadHooks(t *testing.T, spec string) (*ir.API, ir.Diagnostics) {
	t.Helper()
	api, diags, err := LoadData("t.yaml", []byte(spec), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("LoadData: %v %v", err, diags)
	}
	return api, diags
}

func webhookWarnings(diags ir.Diagnostics) []ir.Diagnostic {
	var out []ir.Diagnostic
	for _, d := range diags {
		if d.Rule == ruleWebhook {
			out = append(out, d)
		}
	}
	return out
}

const hooks31 = `openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
webhooks:
  order.shipped:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                type: {const: order.shipped.v2}
  refundCreated:
    post:
      operationId: onRefund
      requestBody:
        content:
          application/cloudevents+json:
            schema: {$ref: "#/components/schemas/Refund"}
  sameType:
    post:
      requestBody:
        content:
          application/json:
            schema:
              allOf:
                - $ref: "#/components/schemas/Refund"
  ping:
    get:
      responses: {"200": {description: ok}}
  "":
    post:
      requestBody:
        content:
          application/json:
            schema: {type: object}
  textOnly:
    post:
      requestBody:
        content:
          text/plain:
            schema: {type: string}
components:
  schemas:
    Refund:
      type: object
      properties:
        type: {type: string, enum: [refund.created]}
`

// TestWebhooksFromDocument: names, handler names and event types of 3.1
// webhooks; what cannot be received is reported and left out.
func TestWebhooksFromDocument(t *testing.T) {
	api, diags := loadHooks(t, hooks31)
	var got []string
	for _, w := range api.Webhooks {
		got = append(got, w.Name+"/"+w.GoName+"/"+w.EventType)
	}
	want := "refundCreated/OnRefund/refund.created order.shipped/OrderShipped/order.shipped.v2 sameType/SameType/"
	if strings.Join(got, " ") != want {
		t.Fatalf("webhooks %q, want %q", strings.Join(got, " "), want)
	}
	if r := api.Webhooks[0].Payload; r.Kind != ir.KindRef || r.Ref.GoName != "Refund" {
		t.Errorf("refundCreated's payload is not the shared Refund model: %+v", r)
	}
	var msgs []string
	for _, d := range webhookWarnings(diags) {
		msgs = append(msgs, d.Pointer+": "+d.Message)
	}
	for _, w := range []string{
		`/webhooks/ping/get: webhook "ping" is delivered with GET`,
		`/webhooks/textOnly/post: webhook "textOnly" has no JSON request body`,
		`/webhooks//post: a webhook without a name cannot be routed`,
		`/webhooks/sameType/post: webhook "sameType"'s payload type "refund.created" is already "refundCreated"'s`,
	} {
		if !strings.Contains(strings.Join(msgs, "\n"), w) {
			t.Errorf("no warning %q in\n%s", w, strings.Join(msgs, "\n"))
		}
	}
}

// TestXWebhooksAndCallbacks: a 3.0 document's x-webhooks are read as
// webhooks, and operations' callbacks are webhooks named by the callback.
func TestXWebhooksAndCallbacks(t *testing.T) {
	api, _ := loadHooks(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /subscriptions:
    post:
      operationId: subscribe
      callbacks:
        onEvent:
          "{$request.body#/url}":
            post:
              requestBody:
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/Event"}
              responses: {"204": {description: ok}}
      responses: {"201": {description: ok}}
x-webhooks:
  issues-opened:
    post:
      operationId: issues/opened
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Event"}
      responses: {"200": {description: ok}}
components:
  schemas:
    Event:
      type: object
      properties:
        action: {type: string}
`)
	var got []string
	for _, w := range api.Webhooks {
		got = append(got, w.Name+"/"+w.GoName+"/"+w.Source.Pointer)
	}
	want := "issues-opened/IssuesOpened//webhooks/issues-opened/post onEvent/OnEvent//paths/~1subscriptions/post/callbacks/onEvent/{$request.body#~1url}/post"
	if strings.Join(got, " ") != want {
		t.Fatalf("webhooks %q\nwant %q", strings.Join(got, " "), want)
	}
}

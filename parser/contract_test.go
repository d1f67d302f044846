package parser

import (
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestContractSummary pins the sentence each generated method's doc comment
// opens with (the generator prints ir.RetryContract.Summary as it is).
func TestContractSummary(t *testing.T) {
	def := ir.DefaultRetryable()
	for _, tt := range []struct {
		c    ir.RetryContract
		want string
	}{
		{ir.RetryContract{Safety: ir.Keyed, KeyName: "Idempotency-Key", Retryable: def},
			"Op is keyed: every attempt sends one Idempotency-Key; retried on 408, 429, 502, 503, 504 and on unknown outcomes."},
		{ir.RetryContract{Safety: ir.Idempotent, Retryable: ir.StatusSet{Codes: []int{429}, Classes: []int{5}}},
			"Op is idempotent: retried on 429, 5xx and on unknown outcomes."},
		{ir.RetryContract{Safety: ir.Idempotent},
			"Op is idempotent: retried on unknown outcomes only."},
		{ir.RetryContract{Safety: ir.Unsafe, Retryable: def},
			"Op is not idempotent: never resent once the request may have reached the server; retried only when it was not sent or on 429."},
		{ir.RetryContract{Safety: ir.Unsafe, Retryable: ir.StatusSet{Codes: []int{503}}},
			"Op is not idempotent: never resent once the request may have reached the server; retried only when it was not sent."},
		{ir.RetryContract{Safety: ir.Unsafe, Retryable: ir.StatusSet{Classes: []int{4}}},
			"Op is not idempotent: never resent once the request may have reached the server; retried only when it was not sent or on 429."},
	} {
		if got := contractSummary("Op", tt.c); got != tt.want {
			t.Errorf("contractSummary(%+v)\n got %s\nwant %s", tt.c, got, tt.want)
		}
	}
}

// TestContractSummaryInIR: the parser stores the sentence, naming the
// operation by its Go name.
func TestContractSummaryInIR(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      operationId: create_order
      parameters: [{name: idempotency-key, in: header, schema: {type: string}}]
      x-retryable-status: [503]
      responses: {"201": {description: ok}}
`
	api, diags, err := LoadData("t.yaml", []byte(spec), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	want := "CreateOrder is keyed: every attempt sends one idempotency-key; retried on 503 and on unknown outcomes."
	if got := api.Operations[0].Retry.Summary; got != want {
		t.Errorf("Summary\n got %s\nwant %s", got, want)
	}
}

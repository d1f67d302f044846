package idemotel_test

import (
	"context"
	"net/url"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	idemotel "github.com/idemgen/idemgen/otel"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestHedgedRoundEvents: a hedged round's loser is an attempt event with
// outcome "cancelled", not "retried", and the winning hedge's reason is
// "hedge".
func TestHedgedRoundEvents(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tel, err := idemotel.New(idemotel.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))
	if err != nil {
		t.Fatal(err)
	}
	op := &idemrt.Operation{ID: "getOrder", Method: "GET", Path: "/orders/{id}", Safety: idemrt.Idempotent}
	u, _ := url.Parse("http://api.test/orders/1")
	ctx := tel.StartCall(context.Background(), op, &idemrt.Request{Method: "GET", URL: u})
	attempts := []idemrt.Attempt{
		{Operation: "getOrder", Number: 1, Reason: idemrt.ReasonFirst, Outcome: idemrt.OutcomeCancelled, Err: idemrt.ErrHedgeLost},
		{Operation: "getOrder", Number: 2, Reason: idemrt.ReasonHedge, StatusCode: 200, Final: true, Outcome: idemrt.OutcomeSuccess},
	}
	for _, a := range attempts {
		tel.ObserveAttempt(ctx, a)
	}
	tel.EndCall(ctx, idemrt.OutcomeSuccess, attempts, nil)
	ended := spans.Ended()
	if len(ended) != 1 || len(ended[0].Events()) != 2 {
		t.Fatalf("%d spans, events %+v", len(ended), ended)
	}
	ev := ended[0].Events()
	first, second := attrMap(ev[0].Attributes), attrMap(ev[1].Attributes)
	if first["idemgen.attempt.outcome"] != "cancelled" || first["idemgen.attempt.reason"] != "first" ||
		second["idemgen.attempt.outcome"] != "success" || second["idemgen.attempt.reason"] != "hedge" {
		t.Fatalf("events %v, %v", first, second)
	}
}

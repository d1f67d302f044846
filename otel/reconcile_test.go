package idemotel_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/idemgen/idemgen/ledger/journal"
	idemotel "github.com/idemgen/idemgen/otel"
)

// TestReconcilePassSpan: a reconciler's pass becomes one span spanning the
// pass, with its counts as attributes, and an error status when it stopped
// early.
func TestReconcilePassSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel, err := idemotel.New(idemotel.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))))
	if err != nil {
		t.Fatal(err)
	}
	var obs journal.Observer = tel
	start := time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC)
	obs.ObservePass(context.Background(), journal.Pass{Start: start, End: start.Add(time.Second), Claimed: 3, Executed: 1, NotExecuted: 1, NeedsPerson: 1})
	obs.ObservePass(context.Background(), journal.Pass{Start: start, End: start, Err: errors.New("database unreachable")})
	spans := rec.Ended()
	if len(spans) != 2 || spans[0].Name() != idemotel.ReconcileSpanName || !spans[0].StartTime().Equal(start) ||
		spans[0].EndTime().Sub(spans[0].StartTime()) != time.Second {
		t.Fatalf("spans %+v", spans)
	}
	attrs := map[string]int64{}
	for _, a := range spans[0].Attributes() {
		attrs[string(a.Key)] = a.Value.AsInt64()
	}
	if attrs["idemgen.reconcile.claimed"] != 3 || attrs["idemgen.reconcile.executed"] != 1 || attrs["idemgen.reconcile.needs_person"] != 1 {
		t.Fatalf("attributes %v", attrs)
	}
	if spans[0].Status().Code == codes.Error || spans[1].Status().Code != codes.Error {
		t.Fatalf("statuses %v, %v", spans[0].Status(), spans[1].Status())
	}
}

package idemotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/idemgen/idemgen/ledger/journal"
)

// ReconcileSpanName names the span of one reconciliation pass.
const ReconcileSpanName = "idemgen.reconcile"

// ObservePass makes t a journal.Observer: each pass of a journal.Reconciler
// becomes one internal span from the pass's start to its end, with what it
// did as attributes (idemgen.reconcile.claimed, .executed, .not_executed,
// .needs_person, .later) and an error status when it stopped early. Set it
// as the Reconciler's Observer. Entries' keys and bodies are never
// attributes.
func (t *Telemetry) ObservePass(ctx context.Context, p journal.Pass) {
	_, span := t.tracer.Start(ctx, ReconcileSpanName, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(p.Start),
		trace.WithAttributes(
			attribute.Int("idemgen.reconcile.claimed", p.Claimed),
			attribute.Int("idemgen.reconcile.executed", p.Executed),
			attribute.Int("idemgen.reconcile.not_executed", p.NotExecuted),
			attribute.Int("idemgen.reconcile.needs_person", p.NeedsPerson),
			attribute.Int("idemgen.reconcile.later", p.Later),
		))
	if p.Err != nil {
		span.SetStatus(codes.Error, p.Err.Error())
	}
	span.End(trace.WithTimestamp(p.End))
}

var _ journal.Observer = (*Telemetry)(nil)

package idemotel

import (
	"context"
	"fmt"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// instruments are the adapter's metrics. http.client.request.duration is
// the HTTP semantic conventions' client metric, one measurement per attempt
// sent; the others are idemgen's own.
type instruments struct {
	attempts metric.Int64Counter
	request  metric.Float64Histogram
	callDur  metric.Float64Histogram
	budget   metric.Float64Gauge
}

// durationBounds are the semantic conventions' advised buckets for
// http.client.request.duration, in seconds.
var durationBounds = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

func (in *instruments) init(m metric.Meter) error {
	var err error
	if in.attempts, err = m.Int64Counter("idemgen.client.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts sent by idemgen clients, by reason and by what they led to.")); err != nil {
		return fmt.Errorf("idemotel: %w", err)
	}
	if in.request, err = m.Float64Histogram("http.client.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of HTTP client requests (one per attempt)."),
		metric.WithExplicitBucketBoundaries(durationBounds...)); err != nil {
		return fmt.Errorf("idemotel: %w", err)
	}
	if in.callDur, err = m.Float64Histogram("idemgen.client.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of idemgen client calls, every attempt and wait included."),
		metric.WithExplicitBucketBoundaries(durationBounds...)); err != nil {
		return fmt.Errorf("idemotel: %w", err)
	}
	if in.budget, err = m.Float64Gauge("idemgen.client.retry_budget", metric.WithUnit("{retry}"),
		metric.WithDescription("Retries the client's retry budget allows now (after the last attempt settled).")); err != nil {
		return fmt.Errorf("idemotel: %w", err)
	}
	return nil
}

// attempt records one attempt: the counter, the request duration (when the
// editor saw it start) and the budget level.
func (in *instruments) attempt(ctx context.Context, st *callState, a idemrt.Attempt, outcome string, result []attribute.KeyValue) {
	attrs := append(append([]attribute.KeyValue{}, st.common...), result...)
	counted := append(attrs, attribute.String("idemgen.attempt.reason", a.Reason.String()),
		attribute.String("idemgen.attempt.outcome", outcome))
	in.attempts.Add(ctx, 1, metric.WithAttributes(counted...))
	if !st.attemptStart.IsZero() && a.Outcome != idemrt.OutcomeRedirected {
		in.request.Record(ctx, now().Sub(st.attemptStart).Seconds(), metric.WithAttributes(attrs...))
	}
	if !math.IsInf(a.BudgetLeft, 1) {
		in.budget.Record(ctx, a.BudgetLeft, metric.WithAttributes(serverAttrs(st.common)...))
	}
}

// call records a call's duration with its outcome.
func (in *instruments) call(ctx context.Context, st *callState, outcome idemrt.Outcome, err error) {
	attrs := append(append([]attribute.KeyValue{}, st.common...), attribute.String("idemgen.call.outcome", outcome.String()))
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", callErrorType(err)))
	}
	in.callDur.Record(ctx, now().Sub(st.start).Seconds(), metric.WithAttributes(attrs...))
}

// serverAttrs keeps the server's attributes: a budget belongs to a client,
// not to an operation.
func serverAttrs(common []attribute.KeyValue) []attribute.KeyValue {
	var out []attribute.KeyValue
	for _, kv := range common {
		if kv.Key == "server.address" || kv.Key == "server.port" {
			out = append(out, kv)
		}
	}
	return out
}

// typeName is fmt's %T.
func typeName(v any) string { return fmt.Sprintf("%T", v) }

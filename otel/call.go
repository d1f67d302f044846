package idemotel

import (
	"context"
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// now is the adapter's clock (durations only; the runtime's own clock
// drives waits).
var now = time.Now

// callState is one call's view, kept in the call's context. A call runs on
// one goroutine (the runtime calls editors and observers from it), so the
// state needs no lock.
type callState struct {
	span trace.Span
	// common are the attributes every metric of the call carries.
	common       []attribute.KeyValue
	start        time.Time
	attemptStart time.Time
	key          string
	// last is the attempt number of the last record and lastHop whether it
	// was a redirect hop, to tell a final re-delivery from a new attempt.
	last    int
	lastHop bool
}

type stateKey struct{}

func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// StartCall opens the call's client span, named "METHOD /route/{template}"
// as the HTTP semantic conventions name client spans, and puts it in the
// call's context.
func (t *Telemetry) StartCall(ctx context.Context, op *idemrt.Operation, req *idemrt.Request) context.Context {
	common := []attribute.KeyValue{
		attribute.String("http.request.method", op.Method),
		attribute.String("url.template", op.Path),
		attribute.String("idemgen.operation.id", op.ID),
	}
	if req.URL != nil {
		common = append(common, attribute.String("server.address", req.URL.Hostname()))
		if p := port(req.URL); p > 0 {
			common = append(common, attribute.Int("server.port", p))
		}
	}
	attrs := append([]attribute.KeyValue{attribute.String("idemgen.operation.safety", op.Safety.String())}, common...)
	ctx, span := t.tracer.Start(ctx, op.Method+" "+op.Path, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, stateKey{}, &callState{span: span, common: common, start: now()})
}

// port is the URL's port, or the scheme's default.
func port(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	switch u.Scheme {
	case "https":
		return 443
	case "http":
		return 80
	}
	return 0
}

// ObserveAttempt adds the attempt's event to the call span and counts it.
func (t *Telemetry) ObserveAttempt(ctx context.Context, a idemrt.Attempt) {
	st := stateOf(ctx)
	if st == nil {
		return
	}
	st.key = a.Key
	if a.Final && a.Number == st.last && !st.lastHop {
		// The same attempt delivered again as the final one (the call ended
		// while waiting): EndCall reports the outcome.
		return
	}
	st.last, st.lastHop = a.Number, a.Outcome == idemrt.OutcomeRedirected
	outcome := attemptOutcome(a)
	ev := []attribute.KeyValue{
		attribute.Int("idemgen.attempt.number", a.Number),
		attribute.String("idemgen.attempt.reason", a.Reason.String()),
		attribute.String("idemgen.attempt.outcome", outcome),
		attribute.Float64("idemgen.attempt.wait", a.Wait.Seconds()),
		attribute.String("idemgen.attempt.wait_source", a.WaitSource.String()),
		attribute.Float64("idemgen.attempt.time_left", a.TimeLeft.Seconds()),
	}
	if !math.IsInf(a.BudgetLeft, 1) {
		ev = append(ev, attribute.Float64("idemgen.retry_budget.left", a.BudgetLeft))
	}
	result := attemptResult(a)
	ev = append(ev, result...)
	st.span.AddEvent("idemgen.attempt", trace.WithAttributes(ev...))
	t.inst.attempt(ctx, st, a, outcome, result)
}

// attemptOutcome names what an attempt led to: the call's outcome on the
// last one, "redirected" for a hop, "cancelled" for a hedged round's loser,
// else "retried".
func attemptOutcome(a idemrt.Attempt) string {
	if a.Final || a.Outcome == idemrt.OutcomeRedirected || a.Outcome == idemrt.OutcomeCancelled {
		return a.Outcome.String()
	}
	return "retried"
}

// attemptResult is the status, or the error type, of one attempt.
func attemptResult(a idemrt.Attempt) []attribute.KeyValue {
	var out []attribute.KeyValue
	if a.StatusCode > 0 {
		out = append(out, attribute.Int("http.response.status_code", a.StatusCode))
		if a.StatusCode >= 400 {
			out = append(out, attribute.String("error.type", strconv.Itoa(a.StatusCode)))
		}
	}
	if a.Err != nil {
		out = append(out, attribute.String("error.type", errorType(a.Err)))
	}
	return out
}

// EndCall sets the call's outcome on its span, ends it and records the
// call's duration.
func (t *Telemetry) EndCall(ctx context.Context, outcome idemrt.Outcome, attempts []idemrt.Attempt, err error) {
	st := stateOf(ctx)
	if st == nil {
		return
	}
	sends := 0
	for _, a := range attempts {
		if a.Outcome != idemrt.OutcomeRedirected {
			sends++
		}
	}
	attrs := []attribute.KeyValue{
		attribute.String("idemgen.call.outcome", outcome.String()),
		attribute.Int("idemgen.call.attempts", sends),
	}
	if sends > 1 {
		attrs = append(attrs, attribute.Int("http.request.resend_count", sends-1))
	}
	if n := len(attempts); n > 0 && attempts[n-1].StatusCode > 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", attempts[n-1].StatusCode))
	}
	key := idemrt.KeyOf(err)
	if key == "" {
		key = st.key
	}
	if t.keys && key != "" {
		attrs = append(attrs, attribute.String("idemgen.idempotency_key", key))
	}
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", callErrorType(err)))
		desc := describe(err, key, t.keys)
		// Recorded as span.RecordError would, but with the description:
		// err's own text holds the key and a transport error's URL.
		st.span.AddEvent("exception", trace.WithAttributes(
			attribute.String("exception.type", typeName(err)), attribute.String("exception.message", desc)))
		st.span.SetStatus(codes.Error, desc)
	}
	st.span.SetAttributes(attrs...)
	st.span.End()
	t.inst.call(ctx, st, outcome, err)
}

// errorType is a transport error's Go type, the request URL's wrapper
// removed: low-cardinality, as error.type must be.
func errorType(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	if errors.Is(err, context.Canceled) {
		return "canceled"
	}
	return strings.TrimPrefix(typeName(err), "*")
}

// callErrorType is the final status for a status error, "decode" for a
// success body that does not decode, else the cause's type.
func callErrorType(err error) string {
	var se *idemrt.StatusError
	if errors.As(err, &se) {
		return strconv.Itoa(se.StatusCode)
	}
	if errors.Is(err, idemrt.ErrDecode) {
		return "decode"
	}
	var ce *idemrt.CallError
	if errors.As(err, &ce) && ce.Err != nil {
		return errorType(ce.Err)
	}
	return errorType(err)
}

// describe is the span status text: the error without the request URL a
// transport error carries, and without the key unless keep.
func describe(err error, key string, keep bool) string {
	var se *idemrt.StatusError
	var ce *idemrt.CallError
	var msg string
	switch {
	case errors.As(err, &se):
		msg = "HTTP " + strconv.Itoa(se.StatusCode)
		if se.Reason != nil {
			msg += ": " + se.Reason.Error()
		}
	case errors.As(err, &ce):
		var parts []string
		if ce.Reason != nil {
			parts = append(parts, ce.Reason.Error())
		}
		if ce.Err != nil {
			parts = append(parts, withoutURL(ce.Err))
		}
		msg = strings.Join(parts, ": ")
	default:
		msg = withoutURL(err)
	}
	if key != "" && !keep {
		msg = strings.ReplaceAll(msg, key, "[key]")
	}
	return msg
}

// withoutURL is err's text with a *url.Error's URL left out.
func withoutURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}

// Package idemotel reports the calls of idemgen-generated clients to
// OpenTelemetry: one client span per call with one event per attempt, W3C
// trace context in every attempt's headers, and metrics for attempts, the
// retry budget and call durations.
//
// It is its own module (github.com/idemgen/idemgen/otel), so neither idemgen
// nor the clients it generates depend on OpenTelemetry:
//
//	tel, err := idemotel.New(idemotel.WithTracerProvider(tp), idemotel.WithMeterProvider(mp))
//	c, err := orders.NewClient(url, append(tel.Options(), orders.WithBearerAuth(token))...)
//
// Idempotency keys and credentials never become attribute values: records
// carry no headers, error texts lose the request URL (query strings carry API
// keys) and the key, and the key itself is recorded only with
// WithKeyAttribute.
package idemotel

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/idemgen/idemgen/otel"

// Telemetry is an idemrt.CallObserver and a request editor that report to
// OpenTelemetry. It is safe for concurrent use; one value serves any number
// of clients.
type Telemetry struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	keys   bool
	inst   instruments
}

// Option configures New.
type Option func(*config)

type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
	keys bool
}

// WithTracerProvider sets the tracer provider (default: otel's global one).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets the meter provider (default: otel's global one).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithPropagator sets the propagator that writes trace context into every
// attempt's headers (default: W3C Trace Context, the traceparent and
// tracestate headers).
func WithPropagator(p propagation.TextMapPropagator) Option { return func(c *config) { c.prop = p } }

// WithKeyAttribute opts in to recording each call's idempotency key as the
// span attribute idemgen.idempotency_key (and leaves it in error
// descriptions). Off by default: a key can be as sensitive as the intent it
// names.
func WithKeyAttribute() Option { return func(c *config) { c.keys = true } }

// New returns a Telemetry. It fails only when the meter refuses an
// instrument.
func New(opts ...Option) (*Telemetry, error) {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.tp == nil {
		cfg.tp = otel.GetTracerProvider()
	}
	if cfg.mp == nil {
		cfg.mp = otel.GetMeterProvider()
	}
	if cfg.prop == nil {
		cfg.prop = propagation.TraceContext{}
	}
	t := &Telemetry{tracer: cfg.tp.Tracer(ScopeName), prop: cfg.prop, keys: cfg.keys}
	if err := t.inst.init(cfg.mp.Meter(ScopeName)); err != nil {
		return nil, err
	}
	return t, nil
}

// Options returns the client options that install t: the observer and the
// request editor that injects trace context. Pass them to a generated
// NewClient (or idemrt.NewRunner) with the other options.
func (t *Telemetry) Options() []idemrt.Option {
	return []idemrt.Option{idemrt.WithObserver(t), idemrt.WithRequestEditor(t.Inject)}
}

// Inject is the request editor: it writes the call span's trace context
// into the attempt's headers (every attempt carries the same trace id and
// parent span) and notes when the attempt started.
func (t *Telemetry) Inject(ctx context.Context, req *http.Request) error {
	t.prop.Inject(ctx, propagation.HeaderCarrier(req.Header))
	if st := stateOf(ctx); st != nil {
		st.attemptStart = now()
	}
	return nil
}

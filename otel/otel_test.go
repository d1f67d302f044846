package idemotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/idemgen/idemgen/golden/orders"
	idemotel "github.com/idemgen/idemgen/otel"
	idemrt "github.com/idemgen/idemgen/runtime"
)

const (
	secretKey   = "k-secret-7f3a"
	secretToken = "tok-s3cr3t"
)

// fakeClock never sleeps: a wait moves its time forward.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// server answers the statuses in order (the last one repeats) and keeps
// the traceparent header of every request.
type server struct {
	*httptest.Server
	mu          sync.Mutex
	traceparent []string
}

func newServer(t *testing.T, statuses ...int) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n := len(s.traceparent)
		s.traceparent = append(s.traceparent, r.Header.Get("traceparent"))
		s.mu.Unlock()
		st := statuses[min(n, len(statuses)-1)]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		if st == http.StatusCreated {
			_ = json.NewEncoder(w).Encode(orders.Payment{ID: "pay_1", OrderID: "o1", Amount: 500, Currency: "EUR", Status: orders.PaymentStatusAuthorized})
		}
	}))
	t.Cleanup(s.Close)
	return s
}

type setup struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	client *orders.Client
}

func newSetup(t *testing.T, srv *server, opts ...idemotel.Option) setup {
	t.Helper()
	s := setup{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(s.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(s.reader))
	tel, err := idemotel.New(append([]idemotel.Option{idemotel.WithTracerProvider(tp), idemotel.WithMeterProvider(mp)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	clientOpts := append(tel.Options(), orders.WithBearerAuth(secretToken),
		idemrt.WithClock(&fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}),
		idemrt.WithHTTPClient(srv.Client()))
	if s.client, err = orders.NewClient(srv.URL, clientOpts...); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s setup) pay(t *testing.T) error {
	t.Helper()
	_, err := s.client.CreatePayment(context.Background(), orders.PaymentRequest{OrderID: "o1", Amount: 500, Currency: "EUR"},
		orders.CreatePaymentParams{IdempotencyKey: secretKey})
	return err
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// TestOneCallSpanTwoAttempts: a 503 then a success give one client span
// with two attempt events in order, and both attempts carry the span's
// trace context to the server.
func TestOneCallSpanTwoAttempts(t *testing.T) {
	srv := newServer(t, http.StatusServiceUnavailable, http.StatusCreated)
	s := newSetup(t, srv)
	if err := s.pay(t); err != nil {
		t.Fatal(err)
	}
	ended := s.spans.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans ended, want 1", len(ended))
	}
	span := ended[0]
	if span.Name() != "POST /payments" || span.SpanKind() != trace.SpanKindClient || span.Status().Code == codes.Error {
		t.Errorf("span %q kind %v status %v", span.Name(), span.SpanKind(), span.Status())
	}
	got := attrMap(span.Attributes())
	for k, v := range map[string]string{
		"idemgen.operation.id": "createPayment", "idemgen.operation.safety": "keyed", "http.request.method": "POST",
		"url.template": "/payments", "server.address": "127.0.0.1", "idemgen.call.outcome": "success",
		"idemgen.call.attempts": "2", "http.request.resend_count": "1", "http.response.status_code": "201",
	} {
		if got[k] != v {
			t.Errorf("span attribute %s = %q, want %q", k, got[k], v)
		}
	}
	events := span.Events()
	if len(events) != 2 {
		t.Fatalf("%d events, want 2: %+v", len(events), events)
	}
	first, second := attrMap(events[0].Attributes), attrMap(events[1].Attributes)
	want := []map[string]string{
		{"idemgen.attempt.number": "1", "idemgen.attempt.reason": "first", "idemgen.attempt.outcome": "retried",
			"http.response.status_code": "503", "error.type": "503", "idemgen.attempt.wait_source": "none"},
		{"idemgen.attempt.number": "2", "idemgen.attempt.reason": "status", "idemgen.attempt.outcome": "success",
			"http.response.status_code": "201", "idemgen.attempt.wait_source": "backoff"},
	}
	for i, ev := range []map[string]string{first, second} {
		if events[i].Name != "idemgen.attempt" {
			t.Errorf("event %d is %q", i, events[i].Name)
		}
		for k, v := range want[i] {
			if ev[k] != v {
				t.Errorf("event %d: %s = %q, want %q", i, k, ev[k], v)
			}
		}
		if _, ok := ev["idemgen.retry_budget.left"]; !ok {
			t.Errorf("event %d has no budget level", i)
		}
	}
	if len(srv.traceparent) != 2 {
		t.Fatalf("the server saw %d requests", len(srv.traceparent))
	}
	sc := span.SpanContext()
	wantTP := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"
	for i, tp := range srv.traceparent {
		if tp != wantTP {
			t.Errorf("attempt %d: traceparent %q, want %q", i+1, tp, wantTP)
		}
	}
	assertNoSecrets(t, s, false)
	checkMetrics(t, s.reader)
}

// checkMetrics: two attempts counted (one retried, one success), two
// request durations, one call duration, a budget level.
func checkMetrics(t *testing.T, reader *sdkmetric.ManualReader) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			seen[m.Name] = true
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				byOutcome := map[string]int64{}
				for _, dp := range d.DataPoints {
					v, _ := dp.Attributes.Value("idemgen.attempt.outcome")
					byOutcome[v.AsString()] += dp.Value
				}
				if byOutcome["retried"] != 1 || byOutcome["success"] != 1 {
					t.Errorf("%s by outcome: %v", m.Name, byOutcome)
				}
			case metricdata.Histogram[float64]:
				var n uint64
				for _, dp := range d.DataPoints {
					n += dp.Count
				}
				want := map[string]uint64{"http.client.request.duration": 2, "idemgen.client.call.duration": 1}[m.Name]
				if n != want {
					t.Errorf("%s: %d measurements, want %d", m.Name, n, want)
				}
			}
		}
	}
	for _, name := range []string{"idemgen.client.attempts", "http.client.request.duration", "idemgen.client.call.duration", "idemgen.client.retry_budget"} {
		if !seen[name] {
			t.Errorf("no %s metric", name)
		}
	}
}

// assertNoSecrets: the token never appears in any attribute, event or
// status; the key only as idemgen.idempotency_key, and only when opted in.
func assertNoSecrets(t *testing.T, s setup, keyAllowed bool) {
	t.Helper()
	check := func(where, text string) {
		if strings.Contains(text, secretToken) {
			t.Errorf("%s holds the bearer token: %s", where, text)
		}
		if strings.Contains(text, secretKey) && !(keyAllowed && where == "idemgen.idempotency_key") {
			t.Errorf("%s holds the idempotency key: %s", where, text)
		}
	}
	for _, sp := range s.spans.Ended() {
		check("status", sp.Status().Description)
		for _, kv := range sp.Attributes() {
			check(string(kv.Key), kv.Value.Emit())
		}
		for _, ev := range sp.Events() {
			for _, kv := range ev.Attributes {
				check(string(kv.Key), kv.Value.Emit())
			}
		}
	}
	var rm metricdata.ResourceMetrics
	if err := s.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			check("metric "+m.Name, dataAttrs(m.Data))
		}
	}
}

// dataAttrs prints every attribute of a metric's data points.
func dataAttrs(data metricdata.Aggregation) string {
	var sets []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, dp := range d.DataPoints {
			sets = append(sets, dp.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, dp := range d.DataPoints {
			sets = append(sets, dp.Attributes)
		}
	case metricdata.Gauge[float64]:
		for _, dp := range d.DataPoints {
			sets = append(sets, dp.Attributes)
		}
	}
	var b strings.Builder
	for _, s := range sets {
		b.WriteString(s.Encoded(attribute.DefaultEncoder()) + ";")
	}
	return b.String()
}

// TestFailedCallKeepsKeyOut: a call that ends on a 503 has an error status
// whose description names neither the key nor the token; with
// WithKeyAttribute the key is recorded as idemgen.idempotency_key.
func TestFailedCallKeepsKeyOut(t *testing.T) {
	for _, optIn := range []bool{false, true} {
		srv := newServer(t, http.StatusServiceUnavailable)
		var opts []idemotel.Option
		if optIn {
			opts = append(opts, idemotel.WithKeyAttribute())
		}
		s := newSetup(t, srv, opts...)
		if err := s.pay(t); err == nil || !strings.Contains(err.Error(), secretKey) {
			t.Fatalf("err %v; want a failure naming the key", err)
		}
		span := s.spans.Ended()[0]
		got := attrMap(span.Attributes())
		if span.Status().Code != codes.Error || !strings.HasPrefix(span.Status().Description, "HTTP 503") || got["error.type"] != "503" {
			t.Errorf("status %+v, error.type %q", span.Status(), got["error.type"])
		}
		if optIn != (got["idemgen.idempotency_key"] == secretKey) {
			t.Errorf("opt-in %v: idemgen.idempotency_key = %q", optIn, got["idemgen.idempotency_key"])
		}
		attempts, exceptions := 0, 0
		for _, ev := range span.Events() {
			switch ev.Name {
			case "idemgen.attempt":
				attempts++
			case "exception":
				exceptions++
			}
		}
		if attempts != len(srv.traceparent) || attempts < 2 || exceptions != 1 {
			t.Errorf("%d attempt events for %d requests, %d exception events", attempts, len(srv.traceparent), exceptions)
		}
		assertNoSecrets(t, s, optIn)
	}
}

// TestUndecodableSuccessIsAnError: a 201 whose body does not decode is an
// error for the caller (ErrDecode), so it is one on the span too: status
// Error, the error recorded as an exception event (without the key), an
// outcome that is not success, and error.type "decode" on the span and on
// the call duration.
func TestUndecodableSuccessIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id": "pay_1", "amount": "not a number"`))
	}))
	t.Cleanup(srv.Close)
	s := newSetup(t, &server{Server: srv})
	err := s.pay(t)
	if !errors.Is(err, idemrt.ErrDecode) {
		t.Fatalf("err %v; want ErrDecode", err)
	}
	ended := s.spans.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans ended, want 1", len(ended))
	}
	span := ended[0]
	got := attrMap(span.Attributes())
	if span.Status().Code != codes.Error || !strings.Contains(span.Status().Description, idemrt.ErrDecode.Error()) {
		t.Errorf("status %+v; want Error naming the decode failure", span.Status())
	}
	if got["idemgen.call.outcome"] == "success" || got["error.type"] != "decode" {
		t.Errorf("outcome %q, error.type %q", got["idemgen.call.outcome"], got["error.type"])
	}
	var exceptions int
	for _, ev := range span.Events() {
		if ev.Name == "exception" {
			exceptions++
			if m := attrMap(ev.Attributes); !strings.Contains(m["exception.message"], idemrt.ErrDecode.Error()) {
				t.Errorf("exception event %v", m)
			}
		}
	}
	if exceptions != 1 {
		t.Errorf("%d exception events, want 1", exceptions)
	}
	var rm metricdata.ResourceMetrics
	if err := s.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "idemgen.client.call.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				o, _ := dp.Attributes.Value("idemgen.call.outcome")
				e, _ := dp.Attributes.Value("error.type")
				if o.AsString() == "success" || e.AsString() != "decode" {
					t.Errorf("call duration recorded as %q, error.type %q", o.AsString(), e.AsString())
				}
			}
		}
	}
	assertNoSecrets(t, s, false)
}

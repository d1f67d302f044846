package runtime

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"testing"
	"time"
)

// okServer answers every request with a small JSON body.
func okServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"order-1","status":"paid"}`)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func drainBody(b *testing.B, resp *http.Response, err error) {
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// BenchmarkHappyPath compares one successful call through the engine with a
// hand-written net/http call on loopback. "bare" is the baseline;
// "engine-policy-deadline" pays for the default 10s deadline context (the
// caller's context has none); "engine-ctx-deadline" runs under a context
// that already has a deadline, as inside a server handler.
func BenchmarkHappyPath(b *testing.B) {
	srv := okServer(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	b.Cleanup(client.CloseIdleConnections)
	u := mustURL(b, srv.URL+"/orders/1")
	body := []byte(`{"amount":100}`)
	bare := func(ctx context.Context, method string, body []byte, keyed bool) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				var rd io.Reader
				if body != nil {
					rd = bytes.NewReader(body)
				}
				req, err := http.NewRequestWithContext(ctx, method, srv.URL+"/orders/1", rd)
				if err != nil {
					b.Fatal(err)
				}
				if keyed {
					req.Header.Set("Idempotency-Key", NewKey())
				}
				resp, err := client.Do(req)
				drainBody(b, resp, err)
			}
		}
	}
	engine := func(ctx context.Context, op *Operation, method string, body []byte) func(b *testing.B) {
		return func(b *testing.B) {
			r := NewRunner(WithHTTPClient(client))
			for b.Loop() {
				resp, err := r.Do(ctx, op, &Request{Method: method, URL: u, Body: body})
				drainBody(b, resp, err)
			}
		}
	}
	getOp := &Operation{ID: "getOrder", Method: "GET", Path: "/orders/{id}", Safety: Idempotent, Retryable: DefaultRetryable}
	deadline, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	bg := context.Background()
	b.Run("get/bare-no-deadline", bare(bg, "GET", nil, false))
	b.Run("get/engine-policy-deadline", engine(bg, getOp, "GET", nil))
	b.Run("get/bare-ctx-deadline", bare(deadline, "GET", nil, false))
	b.Run("get/engine-ctx-deadline", engine(deadline, getOp, "GET", nil))
	b.Run("post-keyed/bare-ctx-deadline", bare(deadline, "POST", body, true))
	b.Run("post-keyed/engine-ctx-deadline", engine(deadline, &keyedOp, "POST", body))
}

// BenchmarkStorm reports the attempts per call the server sees when every
// answer is 503, through one Runner per class with the default budget (waits
// skipped with a frozen clock). The figure tends to 1 as b.N grows past the
// bucket's capacity: 1 + Capacity/b.N.
func BenchmarkStorm(b *testing.B) {
	for _, class := range []Class{Interactive, Background} {
		b.Run(class.String(), func(b *testing.B) {
			srv, hits := outage(b)
			r := NewRunner(WithoutAdaptiveThrottle(), WithClock(&fakeClock{frozen: true}))
			u := mustURL(b, srv.URL+"/things/1")
			calls := 0
			for b.Loop() {
				_, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: u}, WithClass(class))
				if err == nil {
					b.Fatal("success during an outage")
				}
				calls++
			}
			b.ReportMetric(float64(hits.Load())/float64(calls), "attempts/call")
		})
	}
}

// staticDoer answers every request with the same empty 200 response, with
// no network, so BenchmarkEngineOverhead measures the engine's own cost.
type staticDoer struct{ resp http.Response }

func (d *staticDoer) Do(r *http.Request) (*http.Response, error) {
	if t := httptrace.ContextClientTrace(r.Context()); t != nil {
		t.GetConn(r.URL.Host)
		t.WroteRequest(httptrace.WroteRequestInfo{})
	}
	return &d.resp, nil
}

// BenchmarkEngineOverhead is the CPU and allocation cost of the engine
// around a doer that answers at once: "bare" builds the request and calls the
// doer as hand-written code would, "engine" goes through Runner.Do.
func BenchmarkEngineOverhead(b *testing.B) {
	d := &staticDoer{resp: http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}}
	u := mustURL(b, "http://api.test/orders/1")
	body := []byte(`{"amount":100}`)
	b.Run("get/bare", func(b *testing.B) {
		for b.Loop() {
			req, _ := http.NewRequestWithContext(context.Background(), "GET", "http://api.test/orders/1", nil)
			resp, err := d.Do(req)
			drainBody(b, resp, err)
		}
	})
	b.Run("get/engine", func(b *testing.B) {
		r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(d))
		op := &Operation{ID: "getOrder", Method: "GET", Safety: Idempotent, Retryable: DefaultRetryable}
		for b.Loop() {
			resp, err := r.Do(context.Background(), op, &Request{Method: "GET", URL: u})
			drainBody(b, resp, err)
		}
	})
	b.Run("get/engine-hedged", func(b *testing.B) {
		// Hedging on, answers at once: what a hedged round costs when no
		// hedge leaves (its send on a goroutine, a cancellable context,
		// the timer, the latency sketch).
		r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(d), WithHedging(HedgePolicy{After: time.Second, MaxAttempts: 2}))
		op := &Operation{ID: "getOrder", Method: "GET", Safety: Idempotent, Retryable: DefaultRetryable}
		for b.Loop() {
			resp, err := r.Do(context.Background(), op, &Request{Method: "GET", URL: u})
			drainBody(b, resp, err)
		}
	})
	b.Run("post-keyed/bare", func(b *testing.B) {
		for b.Loop() {
			req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://api.test/orders/1", bytes.NewReader(body))
			req.Header.Set("Idempotency-Key", NewKey())
			resp, err := d.Do(req)
			drainBody(b, resp, err)
		}
	})
	b.Run("post-keyed/engine", func(b *testing.B) {
		r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(d))
		for b.Loop() {
			resp, err := r.Do(context.Background(), &keyedOp, &Request{Method: "POST", URL: u, Body: body})
			drainBody(b, resp, err)
		}
	})
}

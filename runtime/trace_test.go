package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync/atomic"
	"testing"
	"time"
)

// ctxKey is a caller's context key.
type ctxKey struct{}

// TestFirstAttemptContext: the first attempt's context, which the call
// answers itself instead of a context.WithValue, carries the engine's trace
// for net/http, every value, deadline and cancellation of the caller's
// context, and no trace once the call's own context is asked.
func TestFirstAttemptContext(t *testing.T) {
	if clientTraceKey == nil {
		t.Fatal("httptrace's context key was not caught")
	}
	var seen context.Context
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		seen = r.Context()
		return (&fakeDoer{script: []step{ok200}}).Do(r)
	})
	ctx, cancel := context.WithDeadline(context.WithValue(context.Background(), ctxKey{}, "v"), time.Now().Add(time.Hour))
	defer cancel()
	var log []Attempt
	r := newTestRunner(d, newFakeClock())
	resp, err := r.Do(ctx, &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")}, WithAttemptLog(&log))
	if err != nil || len(log) != 1 || log[0].Err != nil {
		t.Fatalf("err %v, records %+v", err, log)
	}
	resp.Body.Close()
	tr := httptrace.ContextClientTrace(seen)
	if tr == nil || tr.WroteRequest == nil {
		t.Fatal("the attempt's context carries no engine trace")
	}
	if seen.Value(ctxKey{}) != "v" {
		t.Error("the caller's value is lost")
	}
	if d, ok := seen.Deadline(); !ok || !d.Equal(mustDeadline(t, ctx)) {
		t.Errorf("deadline %v, %v; want the caller's", d, ok)
	}
	c, ok := seen.Value(engineKey{}).(*call)
	if !ok {
		t.Fatal("the attempt's context does not name its call")
	}
	if httptrace.ContextClientTrace(&c.ctx) != nil {
		t.Error("the call's own context answers with the attempt's trace")
	}
	cancel()
	if seen.Err() == nil || seen.Done() == nil {
		t.Error("the caller's cancellation does not reach the attempt's context")
	}
}

func mustDeadline(t *testing.T, ctx context.Context) time.Time {
	t.Helper()
	d, ok := ctx.Deadline()
	if !ok {
		t.Fatal("no deadline")
	}
	return d
}

// TestCallerTraceStillCalled: a ClientTrace in the caller's context (their
// own instrumentation) still gets its events, and the engine still counts
// one send, over net/http's Transport on loopback.
func TestCallerTraceStillCalled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
	defer srv.Close()
	var wrote, got atomic.Int32
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GetConn:      func(string) { got.Add(1) },
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Add(1) },
	})
	var log []Attempt
	r := NewRunner(WithHTTPClient(srv.Client()))
	resp, err := r.Do(ctx, &idempotentOp, &Request{Method: "GET", URL: mustURL(t, srv.URL+"/x")}, WithAttemptLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if wrote.Load() != 1 || got.Load() != 1 || len(log) != 1 || log[0].Reason != ReasonFirst {
		t.Fatalf("caller's hooks: %d writes, %d conns; records %+v", wrote.Load(), got.Load(), log)
	}
}

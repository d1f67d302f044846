package runtime

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// shop is a loopback server with a minimal idempotency ledger: the business
// action runs at most once per key, and a repeated key gets the stored
// result. drop decides, per execution, to lose the response after the action
// committed: "hijack" closes the connection, "cut" drops it mid-body, "stall"
// never answers.
type shop struct {
	executions atomic.Int32
	hits       atomic.Int32
	mu         sync.Mutex
	results    map[string]string
	drop       func(execution int) string
	// release unblocks stalled handlers when the test ends.
	release chan struct{}
	// executed receives one value per execution of the action.
	executed chan struct{}
}

// waitExecuted waits for n executions: a request the client wrote may still
// be in the server's socket when the client gives up on it.
func (s *shop) waitExecuted(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-s.executed:
		case <-time.After(10 * time.Second):
			t.Fatalf("the server executed %d times, want %d", s.executions.Load(), n)
		}
	}
}

func newShop(t *testing.T, drop func(int) string) (*shop, *httptest.Server) {
	s := &shop{results: map[string]string{}, drop: drop, release: make(chan struct{}), executed: make(chan struct{}, 100)}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { close(s.release); srv.Close() })
	return s, srv
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/warm" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.hits.Add(1)
	if _, err := io.ReadAll(r.Body); err != nil {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	if stored, ok := s.results[key]; ok && key != "" {
		s.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, stored)
		return
	}
	n := int(s.executions.Add(1))
	s.executed <- struct{}{}
	result := "order-" + strconv.Itoa(n)
	if key != "" {
		s.results[key] = result
	}
	s.mu.Unlock()
	switch s.drop(n) {
	case "hijack":
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case "cut":
		cutAfterHeader(w, result)
		return
	case "stall":
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		return
	}
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, result)
}

func dropFirst(mode string) func(int) string {
	return func(n int) string {
		if n == 1 {
			return mode
		}
		return ""
	}
}

// loopRunner uses a fresh Transport (no shared idle connections between
// tests) and a fake clock, so waits take no time; attempt timeouts are real.
func loopRunner(t *testing.T, p Policy, opts ...Option) (*Runner, *http.Transport) {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	base := []Option{WithHTTPClient(&http.Client{Transport: tr}), WithClock(newFakeClock()), WithPolicy(Interactive, p),
		WithoutAdaptiveThrottle()}
	return NewRunner(append(base, opts...)...), tr
}

func post(t *testing.T, r *Runner, op *Operation, base, key string) (string, error, []Attempt) {
	t.Helper()
	var log []Attempt
	req := &Request{Method: "POST", URL: mustURL(t, base+op.Path), Body: []byte(`{"amount":100}`), Key: key,
		Header: http.Header{"Content-Type": {"application/json"}}}
	resp, err := r.Do(context.Background(), op, req, WithAttemptLog(&log))
	if err != nil {
		return "", err, log
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil, log
}

// TestLoopbackDropAfterCommit: the server commits, then the connection drops
// before the response. A keyed call executes once and gets the stored result
// on retry; an unsafe call executes once and reports an unknown outcome with
// its key.
func TestLoopbackDropAfterCommit(t *testing.T) {
	s, srv := newShop(t, dropFirst("hijack"))
	r, _ := loopRunner(t, quickPolicy())
	got, err, log := post(t, r, &keyedOp, srv.URL, "")
	if err != nil || got != "order-1" || s.executions.Load() != 1 || s.hits.Load() != 2 {
		t.Fatalf("keyed: %q %v, %d executions, %d hits", got, err, s.executions.Load(), s.hits.Load())
	}
	if len(log) != 2 || log[1].Reason != ReasonUnknownOutcome || log[0].Err == nil {
		t.Fatalf("keyed records %+v", log)
	}

	s2, srv2 := newShop(t, dropFirst("hijack"))
	_, err, log = post(t, r, &unsafeOp, srv2.URL, "intent-42")
	if !errors.Is(err, ErrOutcomeUnknown) || KeyOf(err) != "intent-42" || s2.executions.Load() != 1 || s2.hits.Load() != 1 {
		t.Fatalf("unsafe: %v, key %q, %d executions", err, KeyOf(err), s2.executions.Load())
	}
	if len(log) != 1 || log[0].Outcome != OutcomeUnknown {
		t.Fatalf("unsafe records %+v", log)
	}
}

// TestLoopbackStallAfterBody: the server reads the body, commits and never
// answers. The attempt timeout ends the attempt; a keyed call retries with the
// same key and gets the stored result, an unsafe one stops.
func TestLoopbackStallAfterBody(t *testing.T) {
	p := quickPolicy()
	p.AttemptTimeout = 250 * time.Millisecond
	s, srv := newShop(t, dropFirst("stall"))
	r, _ := loopRunner(t, p)
	got, err, log := post(t, r, &keyedOp, srv.URL, "")
	// Under load the first attempt may time out before the server ran the
	// action; the ledger still runs it once for the key, whichever attempt
	// arrives first.
	if err != nil || got != "order-1" || len(log) < 2 || log[1].Reason != ReasonUnknownOutcome || log[0].Key != log[1].Key {
		t.Fatalf("keyed: %q %v, records %+v", got, err, log)
	}
	s.waitExecuted(t, 1)
	if n := s.executions.Load(); n != 1 {
		t.Fatalf("keyed: %d executions", n)
	}

	s2, srv2 := newShop(t, dropFirst("stall"))
	_, err, log = post(t, r, &unsafeOp, srv2.URL, "intent-7")
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, context.DeadlineExceeded) || KeyOf(err) != "intent-7" || len(log) != 1 {
		t.Fatalf("unsafe: %v after %d attempts", err, len(log))
	}
	s2.waitExecuted(t, 1)
	if n := s2.executions.Load(); n != 1 || s2.hits.Load() != 1 {
		t.Fatalf("unsafe: %d executions, %d hits", n, s2.hits.Load())
	}
}

// refusedAddr returns a loopback address nobody listens on.
func refusedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestLoopbackRefused: a refused connection never reached the server, so
// even an unsafe call retries it.
func TestLoopbackRefused(t *testing.T) {
	r, _ := loopRunner(t, quickPolicy())
	_, err, log := post(t, r, &unsafeOp, "http://"+refusedAddr(t), "")
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, ErrAttemptsExhausted) || len(log) != 3 {
		t.Fatalf("%v after %d attempts", err, len(log))
	}
	if log[1].Reason != ReasonConnection || log[2].Outcome != OutcomeNotSent {
		t.Fatalf("records %+v", log)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("cause %v", ce.Err)
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		t.Fatal("a refused connection is not an unknown outcome")
	}
}

// TestLoopbackRefusedThenServed: the first dial is refused, the retry
// reaches the server, which executes the unsafe action exactly once.
func TestLoopbackRefusedThenServed(t *testing.T) {
	s, srv := newShop(t, func(int) string { return "" })
	dead := refusedAddr(t)
	var dials atomic.Int32
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			addr = dead
		}
		return d.DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(&http.Client{Transport: tr}), WithClock(newFakeClock()), WithPolicy(Interactive, quickPolicy()))
	got, err, log := post(t, r, &unsafeOp, srv.URL, "")
	if err != nil || got != "order-1" || s.executions.Load() != 1 || len(log) != 2 || log[1].Reason != ReasonConnection {
		t.Fatalf("%q %v, %d executions, records %+v", got, err, s.executions.Load(), log)
	}
}

// TestLoopbackTransportReplay: on a reused keep-alive connection that dies
// after the request was written, net/http resends a keyed request by itself.
// The engine sees both writes and records both sends.
func TestLoopbackTransportReplay(t *testing.T) {
	s, srv := newShop(t, dropFirst("hijack"))
	r, tr := loopRunner(t, quickPolicy())
	// Warm up: leave one idle keep-alive connection in the pool.
	warm, err := (&http.Client{Transport: tr}).Get(srv.URL + "/warm")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, warm.Body)
	warm.Body.Close()
	got, err, log := post(t, r, &keyedOp, srv.URL, "")
	if err != nil || got != "order-1" || s.executions.Load() != 1 || s.hits.Load() != 2 {
		t.Fatalf("%q %v, %d executions, %d hits", got, err, s.executions.Load(), s.hits.Load())
	}
	if len(log) != 2 || log[1].Reason != ReasonTransportReplay || !errors.Is(log[0].Err, ErrTransportReplay) {
		t.Fatalf("records %+v", log)
	}
}

// TestLoopbackRetriesReuseConnection: discarded bodies are drained and
// closed, so a retry goes out on the same keep-alive connection.
func TestLoopbackRetriesReuseConnection(t *testing.T) {
	var conns, hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1)%3 != 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write(make([]byte, 16<<10))
			return
		}
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	r, _ := loopRunner(t, quickPolicy())
	for range 5 {
		if got, err, log := post(t, r, &idempotentOp, srv.URL, ""); err != nil || got != "ok" || len(log) != 3 {
			t.Fatalf("%q %v after %d attempts", got, err, len(log))
		}
	}
	if conns.Load() != 1 {
		t.Fatalf("%d connections for 15 attempts: discarded bodies were not drained", conns.Load())
	}
}

// TestUnsafeUnknownWithoutCallerKey: an unsafe call given no key still ends
// with a key on its outcome-unknown error, and its records carry the same key.
func TestUnsafeUnknownWithoutCallerKey(t *testing.T) {
	s, srv := newShop(t, dropFirst("hijack"))
	r, _ := loopRunner(t, quickPolicy())
	op := unsafeOp
	req := &Request{Method: "POST", URL: mustURL(t, srv.URL+op.Path), Body: []byte(`{"amount":100}`)}
	_, err := r.Do(context.Background(), &op, req)
	key := KeyOf(err)
	if !errors.Is(err, ErrOutcomeUnknown) || key == "" || s.executions.Load() != 1 {
		t.Fatalf("err %v, key %q, %d executions; want outcome unknown with a key after one execution", err, key, s.executions.Load())
	}
	if got := req.Header.Get("Idempotency-Key"); got != "" {
		t.Fatalf("an unsafe operation sent key header %q", got)
	}
	for _, a := range AttemptsOf(err) {
		if a.Key != key {
			t.Fatalf("attempt key %q, error key %q", a.Key, key)
		}
	}
}

// TestLoopbackTLSHandshakeFailure: a TLS handshake that fails (the server's
// certificate is not trusted) never wrote the request, so even an unsafe
// call is retried, and the server never executes anything.
func TestLoopbackTLSHandshakeFailure(t *testing.T) {
	s := &shop{results: map[string]string{}, drop: func(int) string { return "" }, release: make(chan struct{}), executed: make(chan struct{}, 100)}
	srv := httptest.NewUnstartedServer(s)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake errors are the point
	srv.StartTLS()
	t.Cleanup(func() { close(s.release); srv.Close() })
	r, _ := loopRunner(t, quickPolicy()) // a Transport that does not trust srv's certificate
	_, err, recs := post(t, r, &unsafeOp, srv.URL, "")
	if !errors.Is(err, ErrAttemptsExhausted) || errors.Is(err, ErrOutcomeUnknown) || len(recs) != 3 {
		t.Fatalf("%v after %d attempts; want the attempts exhausted, not an unknown outcome", err, len(recs))
	}
	if recs[1].Reason != ReasonConnection || s.hits.Load() != 0 || s.executions.Load() != 0 {
		t.Fatalf("records %+v, %d hits", recs, s.hits.Load())
	}
}

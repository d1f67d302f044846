package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sseServer serves events 1..total, resuming after Last-Event-ID, and cuts
// the first connection (hijack and close) after event cutAt. It counts
// executions: requests without Last-Event-ID, which start the work.
type sseServer struct {
	total, cutAt int
	// stall, when set, makes the first connection stop sending (without
	// closing) after event cutAt instead of cutting it.
	stall bool
	// step, when set, is waited on before each event.
	step chan struct{}

	executions atomic.Int32
	mu         sync.Mutex
	lastIDs    []string
	keys       []string
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	last := r.Header.Get("Last-Event-ID")
	s.mu.Lock()
	s.lastIDs = append(s.lastIDs, last)
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	first := len(s.lastIDs) == 1
	s.mu.Unlock()
	start := 1
	if last == "" {
		s.executions.Add(1)
	} else {
		n, _ := strconv.Atoi(last)
		start = n + 1
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for i := start; i <= s.total; i++ {
		if s.step != nil {
			select {
			case <-s.step:
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, "id: %d\nevent: delta\ndata: {\"n\":%d}\n\n", i, i)
		_ = rc.Flush()
		if first && i == s.cutAt {
			if s.stall {
				<-r.Context().Done()
				return
			}
			if conn, _, err := rc.Hijack(); err == nil {
				conn.Close()
			}
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (s *sseServer) seen() (ids, keys []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lastIDs), slices.Clone(s.keys)
}

type delta struct{ N int }

// readStream opens an SSE stream of op on srv and reads it to its end.
func readStream(t *testing.T, r *Runner, op *Operation, srv *httptest.Server, opts ...CallOption) ([]int, error) {
	t.Helper()
	req := &Request{Method: op.Method, URL: mustURL(t, srv.URL+op.Path), Header: http.Header{}}
	s, err := OpenStream[delta](context.Background(), r, op, req, FramingSSE, opts...)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var got []int
	for s.Next() {
		if s.Event().Type != "delta" || s.Event().ID != strconv.Itoa(s.Current().N) {
			t.Fatalf("event %+v", s.Event())
		}
		got = append(got, s.Current().N)
	}
	return got, s.Err()
}

func oneTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

var (
	streamGetOp  = Operation{ID: "watchThings", Method: "GET", Path: "/events", Safety: Idempotent, Retryable: DefaultRetryable}
	streamPostOp = Operation{ID: "createCompletion", Method: "POST", Path: "/chat", Safety: Unsafe, Retryable: DefaultRetryable}
	streamKeyOp  = Operation{ID: "createRun", Method: "POST", Path: "/runs", Safety: Keyed, KeyHeader: "Idempotency-Key", Retryable: DefaultRetryable}
)

// TestStreamResumesSafe: a GET stream cut after 5 events reconnects with
// Last-Event-ID: 5; the caller sees 1..10 exactly once, and the
// reconnection is recorded as a stream-resume attempt.
func TestStreamResumesSafe(t *testing.T) {
	s := &sseServer{total: 10, cutAt: 5}
	srv := httptest.NewServer(s)
	defer srv.Close()
	var reasons []Reason
	obs := ObserverFunc(func(_ context.Context, a Attempt) { reasons = append(reasons, a.Reason) })
	r, _ := loopRunner(t, quickPolicy(), WithObserver(obs))
	got, err := readStream(t, r, &streamGetOp, srv)
	ids, _ := s.seen()
	if err != nil || !slices.Equal(got, oneTo(10)) || !slices.Equal(ids, []string{"", "5"}) {
		t.Fatalf("got %v, %v; Last-Event-ID per request %q", got, err, ids)
	}
	if !slices.Equal(reasons, []Reason{ReasonFirst, ReasonStreamResume}) {
		t.Fatalf("attempt reasons %v", reasons)
	}
}

// TestStreamResumesKeyed: a keyed POST stream reconnects with the same key.
func TestStreamResumesKeyed(t *testing.T) {
	s := &sseServer{total: 10, cutAt: 5}
	srv := httptest.NewServer(s)
	defer srv.Close()
	r, _ := loopRunner(t, quickPolicy())
	got, err := readStream(t, r, &streamKeyOp, srv)
	ids, keys := s.seen()
	if err != nil || !slices.Equal(got, oneTo(10)) || !slices.Equal(ids, []string{"", "5"}) {
		t.Fatalf("got %v, %v; Last-Event-ID per request %q", got, err, ids)
	}
	if len(keys) != 2 || keys[0] == "" || keys[1] != keys[0] || s.executions.Load() != 1 {
		t.Fatalf("keys %q, %d executions", keys, s.executions.Load())
	}
}

// TestStreamCutUnsafe: an unsafe POST stream cut after 5 events is never
// resent: one execution, and an error that says so and carries the key.
func TestStreamCutUnsafe(t *testing.T) {
	s := &sseServer{total: 10, cutAt: 5}
	srv := httptest.NewServer(s)
	defer srv.Close()
	r, _ := loopRunner(t, quickPolicy())
	got, err := readStream(t, r, &streamPostOp, srv)
	if !slices.Equal(got, oneTo(5)) || s.executions.Load() != 1 {
		t.Fatalf("got %v, %d executions", got, s.executions.Load())
	}
	var cut *StreamCutError
	if !errors.Is(err, ErrStreamCut) || !errors.Is(err, ErrOutcomeUnknown) || !errors.As(err, &cut) {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), "after 5 events") || !strings.Contains(err.Error(), "not safe to resend: reconcile first") || KeyOf(err) == "" || cut.LastEventID != "5" || cut.Events != 5 || len(AttemptsOf(err)) != 1 {
		t.Fatalf("err %q, key %q, %+v", err, KeyOf(err), cut)
	}
}

// TestStreamOutlivesDeadline: a stream lasting 60s (virtual time) under the
// interactive policy, whose deadline is 10s, is not cut: the deadline
// covers the headers only. So is a 90s one under the background policy,
// whose attempts time out after 1min. The operation is unsafe, so a cut
// would end the stream.
func TestStreamOutlivesDeadline(t *testing.T) {
	for _, c := range []struct {
		class  Class
		events int
	}{{Interactive, 60}, {Background, 90}} {
		s := &sseServer{total: c.events, step: make(chan struct{}, 1)}
		srv := httptest.NewServer(s)
		clk := newTimerClock()
		r, _ := loopRunner(t, DefaultPolicy(Interactive), WithPolicy(Background, DefaultPolicy(Background)), WithClock(clk))
		req := &Request{Method: "POST", URL: mustURL(t, srv.URL+"/chat")}
		st, err := OpenStream[delta](context.Background(), r, &streamPostOp, req, FramingSSE, WithClass(c.class))
		if err != nil {
			t.Fatal(err)
		}
		start := clk.Now()
		var got []int
		for s.step <- struct{}{}; st.Next(); s.step <- struct{}{} {
			got = append(got, st.Current().N)
			clk.Advance(time.Second)
		}
		st.Close()
		srv.Close()
		lasted := clk.Now().Sub(start)
		if err := st.Err(); err != nil || !slices.Equal(got, oneTo(c.events)) || lasted < time.Duration(c.events)*time.Second {
			t.Fatalf("%v: got %d events, %v, after %v", c.class, len(got), err, lasted)
		}
	}
}

// TestStreamIdleTimeout: a stream silent for longer than the idle timeout
// is cut; a safe one reconnects and completes, an unsafe one ends with an
// error that matches ErrIdleTimeout. (Real timers of 50ms: the server
// stalls until the client gives up, so the outcome does not depend on
// timing.)
func TestStreamIdleTimeout(t *testing.T) {
	s := &sseServer{total: 4, cutAt: 2, stall: true}
	srv := httptest.NewServer(s)
	defer srv.Close()
	r, _ := loopRunner(t, quickPolicy(), WithIdleTimeout(50*time.Millisecond))
	got, err := readStream(t, r, &streamGetOp, srv)
	if ids, _ := s.seen(); err != nil || !slices.Equal(got, oneTo(4)) || !slices.Equal(ids, []string{"", "2"}) {
		t.Fatalf("safe: got %v, %v; Last-Event-ID per request %q", got, err, ids)
	}
	s2 := &sseServer{total: 4, cutAt: 2, stall: true}
	srv2 := httptest.NewServer(s2)
	defer srv2.Close()
	got, err = readStream(t, r, &streamPostOp, srv2)
	if !slices.Equal(got, oneTo(2)) || !errors.Is(err, ErrIdleTimeout) || !errors.Is(err, ErrOutcomeUnknown) || s2.executions.Load() != 1 {
		t.Fatalf("unsafe: got %v, %v", got, err)
	}
}

// TestStreamHeaderDeadline: a server that never sends headers hits the
// call's deadline.
func TestStreamHeaderDeadline(t *testing.T) {
	entered, release := make(chan struct{}, 4), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	clk := newTimerClock()
	r, _ := loopRunner(t, DefaultPolicy(Interactive), WithClock(clk))
	go func() {
		<-entered
		clk.Advance(11 * time.Second)
	}()
	req := &Request{Method: "GET", URL: mustURL(t, srv.URL+"/events")}
	_, err := OpenStream[delta](context.Background(), r, &streamGetOp, req, FramingSSE)
	if !errors.Is(err, ErrDeadline) {
		t.Fatalf("err %v", err)
	}
}

// TestStreamResumeRedirectKeepsCredentialsHome: a reconnection goes through
// the engine's redirect rules: redirected to another server, it keeps
// Last-Event-ID but loses the credentials the client's editor added.
func TestStreamResumeRedirectKeepsCredentialsHome(t *testing.T) {
	other := &sseServer{total: 10}
	var otherAuth atomic.Value
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherAuth.Store(r.Header.Get("Authorization"))
		other.ServeHTTP(w, r)
	}))
	defer otherSrv.Close()
	home := &sseServer{total: 10, cutAt: 5}
	homeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Last-Event-ID") != "" {
			http.Redirect(w, r, otherSrv.URL+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		home.ServeHTTP(w, r)
	}))
	defer homeSrv.Close()
	auth := WithRequestEditor(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer secret")
		return nil
	})
	var log []Attempt
	r, _ := loopRunner(t, quickPolicy(), auth)
	got, err := readStream(t, r, &streamGetOp, homeSrv, WithAttemptLog(&log))
	ids, _ := other.seen()
	if err != nil || !slices.Equal(got, oneTo(10)) || !slices.Equal(ids, []string{"5"}) {
		t.Fatalf("got %v, %v; Last-Event-ID at the other server %q", got, err, ids)
	}
	if a := otherAuth.Load(); a != "" {
		t.Fatalf("the other server got Authorization %q", a)
	}
	// The log holds both connections: the first send, then the resume's
	// redirect hop and its send.
	if len(log) != 3 || log[0].Reason != ReasonFirst || log[1].Reason != ReasonStreamResume || log[1].Outcome != OutcomeRedirected || log[2].Reason != ReasonRedirect {
		t.Fatalf("log %+v", log)
	}
}

// flakyStream sends "retry: 1500" and event 1, then cuts every connection
// (the first after event 1, the others before any event).
func flakyStream(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var conns atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conns.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if r.Header.Get("Last-Event-ID") == "" {
			fmt.Fprint(w, "retry: 1500\nid: 1\ndata: {\"n\":1}\n\n")
		}
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestStreamResumeLimits: reconnections wait the server's retry:, and stop
// at MaxAttempts connections in a row without an event, or when the budget
// is empty; the error names the limit, and a safe stream's cut is not an
// unknown outcome.
func TestStreamResumeLimits(t *testing.T) {
	srv, conns := flakyStream(t)
	clk := newFakeClock()
	r, _ := loopRunner(t, quickPolicy(), WithClock(clk))
	req := &Request{Method: "GET", URL: mustURL(t, srv.URL+"/events")}
	s, err := OpenStream[delta](context.Background(), r, &streamGetOp, req, FramingSSE)
	if err != nil {
		t.Fatal(err)
	}
	for s.Next() {
	}
	s.Close()
	err = s.Err()
	if !errors.Is(err, ErrAttemptsExhausted) || !errors.Is(err, ErrStreamCut) || errors.Is(err, ErrOutcomeUnknown) || conns.Load() != 3 {
		t.Fatalf("%v after %d connections", err, conns.Load())
	}
	if w := clk.Sleeps(); !slices.Equal(w, []time.Duration{1500 * time.Millisecond, 1500 * time.Millisecond}) {
		t.Fatalf("waits %v", w)
	}
	if a := AttemptsOf(err); len(a) != 3 || a[2].Reason != ReasonStreamResume || a[2].WaitSource != WaitRetryAfter {
		t.Fatalf("attempts %+v", a)
	}

	srv2, conns2 := flakyStream(t)
	r2, _ := loopRunner(t, quickPolicy(), WithBudget(Interactive, Budget{Capacity: 1, RetryCost: 1, TimeoutCost: 2}))
	req.URL = mustURL(t, srv2.URL+"/events")
	s, err = OpenStream[delta](context.Background(), r2, &streamGetOp, req, FramingSSE)
	if err != nil {
		t.Fatal(err)
	}
	for s.Next() {
	}
	s.Close()
	if err := s.Err(); !errors.Is(err, ErrBudgetExhausted) || conns2.Load() != 2 {
		t.Fatalf("%v after %d connections", err, conns2.Load())
	}
}

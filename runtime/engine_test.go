package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestKeyAndBodyOnEveryAttempt: a keyed call sends one key (the caller's, or
// a fresh one) and the same body bytes on every attempt.
func TestKeyAndBodyOnEveryAttempt(t *testing.T) {
	for _, callerKey := range []string{"", "caller-key"} {
		d := &fakeDoer{script: []step{reset, answer(503), ok200}}
		_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, callerKey)
		if err != nil || len(d.reqs) != 3 {
			t.Fatalf("err %v, %d requests", err, len(d.reqs))
		}
		key := d.reqs[0].Header.Get("Idempotency-Key")
		if key == "" || (callerKey != "" && key != callerKey) {
			t.Fatalf("key %q, caller's %q", key, callerKey)
		}
		for i, r := range d.reqs {
			if r.Header.Get("Idempotency-Key") != key || d.bodies[i] != "payload" || r.ContentLength != 7 || r.GetBody == nil {
				t.Fatalf("attempt %d: key %q body %q", i, r.Header.Get("Idempotency-Key"), d.bodies[i])
			}
			if log[i].Key != key {
				t.Fatalf("record %d key %q", i, log[i].Key)
			}
		}
	}
}

func TestNewKeyIsRandomUUID(t *testing.T) {
	a, b := NewKey(), NewKey()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Fatalf("keys %q %q", a, b)
	}
}

// TestUnsafeCarriesCallerKey: an unsafe call sends no key header, but its
// outcome-unknown error carries the caller's reconciliation key.
func TestUnsafeCarriesCallerKey(t *testing.T) {
	d := &fakeDoer{script: []step{reset}}
	_, err, _ := doCall(t, newTestRunner(d, newFakeClock()), &unsafeOp, "order-7")
	if !errors.Is(err, ErrOutcomeUnknown) || KeyOf(err) != "order-7" || len(AttemptsOf(err)) != 1 {
		t.Fatalf("err %v key %q", err, KeyOf(err))
	}
	if len(d.reqs[0].Header) != 0 {
		t.Fatalf("unsafe request headers %v", d.reqs[0].Header)
	}
	if !strings.Contains(err.Error(), "order-7") || !strings.Contains(err.Error(), "outcome unknown") {
		t.Fatalf("message %q", err)
	}
}

// TestEditorsAndCallHeaders: editors run on every attempt; call headers are
// sent; an editor error sends nothing.
func TestEditorsAndCallHeaders(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503), ok200}}
	n := 0
	edit := func(_ context.Context, r *http.Request) error {
		n++
		r.Header.Set("Authorization", "Bearer secret")
		return nil
	}
	r := newTestRunner(d, newFakeClock(), WithRequestEditor(edit))
	if _, err, _ := doCall(t, r, &idempotentOp, "", WithHeader("X-Trace", "t1")); err != nil {
		t.Fatal(err)
	}
	for _, q := range d.reqs {
		if q.Header.Get("Authorization") != "Bearer secret" || q.Header.Get("X-Trace") != "t1" {
			t.Fatalf("headers %v", q.Header)
		}
	}
	if n != 2 {
		t.Fatalf("editor ran %d times", n)
	}
	boom := errors.New("no token")
	d2 := &fakeDoer{script: []step{ok200}}
	r2 := newTestRunner(d2, newFakeClock(), WithRequestEditor(func(context.Context, *http.Request) error { return boom }))
	_, err, log := doCall(t, r2, &idempotentOp, "")
	if !errors.Is(err, boom) || d2.count() != 0 || len(log) != 0 {
		t.Fatalf("err %v, %d sent", err, d2.count())
	}
}

// TestNoRetry: as a call option and as a Runner option.
func TestNoRetry(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503)}}
	_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &idempotentOp, "", NoRetry())
	if !errors.Is(err, ErrAttemptsExhausted) || len(log) != 1 {
		t.Fatalf("call option: %v after %d", err, len(log))
	}
	_, err, log = doCall(t, newTestRunner(d, newFakeClock(), NoRetry()), &idempotentOp, "")
	if !errors.Is(err, ErrAttemptsExhausted) || len(log) != 1 {
		t.Fatalf("runner option: %v after %d", err, len(log))
	}
}

// nestingDoer is a doer that, like a middleware, calls another client with
// the request's context before answering.
type nestingDoer struct {
	inner   *Runner
	innerOp *Operation
	log     []Attempt
	err     error
}

func (d *nestingDoer) Do(r *http.Request) (*http.Response, error) {
	_, d.err = d.inner.Do(r.Context(), d.innerOp, &Request{Method: "GET", URL: r.URL}, WithAttemptLog(&d.log))
	return (&fakeDoer{script: []step{ok200}}).Do(r)
}

// TestNestedCallSingleAttempt: a call made under an engine call's context
// makes one attempt, and its sends are not mistaken for the outer call's
// transport replays.
func TestNestedCallSingleAttempt(t *testing.T) {
	innerDoer := &fakeDoer{script: []step{answer(503)}}
	inner := newTestRunner(innerDoer, newFakeClock())
	nd := &nestingDoer{inner: inner, innerOp: &idempotentOp}
	outer := newTestRunner(nd, newFakeClock())
	_, err, log := doCall(t, outer, &idempotentOp, "")
	if err != nil || len(log) != 1 || log[0].Reason != ReasonFirst {
		t.Fatalf("outer: %v, records %+v", err, log)
	}
	if !errors.Is(nd.err, ErrAttemptsExhausted) || innerDoer.count() != 1 || len(nd.log) != 1 {
		t.Fatalf("inner: %v after %d attempts", nd.err, innerDoer.count())
	}
	// Outside the outer call, the same inner client retries as usual.
	innerDoer.reqs = nil
	doCall(t, inner, &idempotentOp, "")
	if innerDoer.count() != 3 {
		t.Fatalf("standalone inner made %d attempts", innerDoer.count())
	}
}

// TestFinishedCallIsNotAnOuterLayer: a context kept from a finished call's
// response does not make later calls single-attempt.
func TestFinishedCallIsNotAnOuterLayer(t *testing.T) {
	d := &fakeDoer{script: []step{ok200}}
	r := newTestRunner(d, newFakeClock())
	resp, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	later := &fakeDoer{script: []step{answer(503), ok200}}
	var log []Attempt
	_, err = newTestRunner(later, newFakeClock()).Do(resp.Request.Context(), &idempotentOp,
		&Request{Method: "PUT", URL: mustURL(t, "http://api.test/y")}, WithAttemptLog(&log))
	if err != nil || len(log) != 2 {
		t.Fatalf("err %v after %d attempts", err, len(log))
	}
}

// TestTransportReplayCounted: two writes in one attempt are two sends in the
// records, the attempt limit and the budget.
func TestTransportReplayCounted(t *testing.T) {
	d := &fakeDoer{script: []step{{status: 200, body: "ok", wrote: 2}}}
	r := newTestRunner(d, newFakeClock(), WithBudget(Interactive, Budget{Capacity: 5, RetryCost: 1}))
	body, err, log := doCall(t, r, &keyedOp, "")
	if err != nil || body != "ok" || len(log) != 2 {
		t.Fatalf("err %v, records %+v", err, log)
	}
	if !errors.Is(log[0].Err, ErrTransportReplay) || log[0].Number != 1 || log[0].Final {
		t.Fatalf("lost send %+v", log[0])
	}
	if log[1].Reason != ReasonTransportReplay || log[1].Number != 2 || !log[1].Final || log[1].StatusCode != 200 {
		t.Fatalf("replayed send %+v", log[1])
	}
	if r.BudgetLeft(Interactive) != 4 {
		t.Fatalf("budget %v, want the replay charged", r.BudgetLeft(Interactive))
	}
	// A replay uses up attempts: with 2 writes in the first attempt, only one
	// engine retry is left of 3.
	d2 := &fakeDoer{script: []step{{status: 503, wrote: 2}, answer(503)}}
	_, err, log = doCall(t, newTestRunner(d2, newFakeClock()), &keyedOp, "")
	if !errors.Is(err, ErrAttemptsExhausted) || len(log) != 3 || d2.count() != 2 {
		t.Fatalf("err %v, %d records, %d engine attempts", err, len(log), d2.count())
	}
}

// TestObserverAndSlogNeverSeeSecrets: every send reaches the observer, and
// the slog adapter logs none of the credentials the requests carry.
func TestObserverAndSlogNeverSeeSecrets(t *testing.T) {
	var mu sync.Mutex
	var seen []Attempt
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d := &fakeDoer{script: []step{answer(503), reset, ok200}}
	r := newTestRunner(d, newFakeClock(), WithSlog(logger),
		WithObserver(ObserverFunc(func(_ context.Context, a Attempt) { mu.Lock(); seen = append(seen, a); mu.Unlock() })),
		WithRequestEditor(func(_ context.Context, q *http.Request) error {
			q.Header.Set("Authorization", "Bearer s3cr3t")
			q.Header.Set("Cookie", "session=c00kie")
			return nil
		}))
	if _, err, _ := doCall(t, r, &keyedOp, "k-9"); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[1].Reason != ReasonStatus || seen[2].Reason != ReasonUnknownOutcome || !seen[2].Final {
		t.Fatalf("observed %+v", seen)
	}
	out := buf.String()
	if strings.Count(out, "\n") != 3 || !strings.Contains(out, `"key":"k-9"`) || !strings.Contains(out, `"outcome":"success"`) {
		t.Fatalf("log:\n%s", out)
	}
	if strings.Contains(out, "s3cr3t") || strings.Contains(out, "c00kie") {
		t.Fatalf("credentials leaked into the log:\n%s", out)
	}
}

// TestSuccessBodyReadWithinCall: the success body is read within the
// attempt, under the call's deadline, so Do releases its contexts before it
// returns (none outlives the call) and the body stays readable. Under a
// cancellable context the call derives its own deadline context; under one
// that cannot be cancelled it shares a deadline with calls started in the
// same 10ms.
func TestSuccessBodyReadWithinCall(t *testing.T) {
	parent, stop := context.WithCancel(context.Background())
	defer stop()
	for _, ctx := range []context.Context{parent, context.Background()} {
		d := &fakeDoer{script: []step{{status: 200, body: strings.Repeat("x", 1000), wrote: 1}}}
		p := quickPolicy()
		p.Timeout = time.Hour
		r := newTestRunner(d, newFakeClock(), WithPolicy(Interactive, p))
		resp, err := r.Do(ctx, &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")})
		if err != nil {
			t.Fatal(err)
		}
		reqCtx := d.reqs[0].Context()
		dl, ok := reqCtx.Deadline()
		if until := time.Until(dl); !ok || until < 59*time.Minute || until > time.Hour+deadlineSlack {
			t.Fatalf("deadline in %v (%v)", until, ok)
		}
		if cancellable := ctx == parent; cancellable != (reqCtx.Err() != nil) {
			t.Fatalf("cancellable parent %v: after Do the request context says %v", cancellable, reqCtx.Err())
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil || len(b) != 1000 {
			t.Fatalf("read %d bytes, err %v", len(b), err)
		}
		resp.Body.Close()
	}
}

// TestSharedDeadlineExpires: calls under context.Background share a deadline
// context that does expire, and an attempt that outlives it ends the call
// with ErrDeadline.
func TestSharedDeadlineExpires(t *testing.T) {
	var dl deadlines
	a, b := dl.get(time.Millisecond, time.Now()), dl.get(time.Millisecond, time.Now())
	if a != b {
		t.Fatal("calls started together should share one deadline")
	}
	<-a.ctx.Done()
	if !errors.Is(a.ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("err %v", a.ctx.Err())
	}
	if c := dl.get(time.Millisecond, time.Now()); c == a || c.ctx.Err() != nil {
		t.Fatal("an expired window must not be handed out")
	}
	blocker := doerFunc(func(r *http.Request) (*http.Response, error) {
		if t := httptrace.ContextClientTrace(r.Context()); t != nil {
			t.GetConn("x")
			t.WroteRequest(httptrace.WroteRequestInfo{})
		}
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	p := quickPolicy()
	p.Timeout = 20 * time.Millisecond
	_, err := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(blocker), WithPolicy(Interactive, p)).Do(context.Background(), &keyedOp,
		&Request{Method: "POST", URL: mustURL(t, "http://api.test/x")})
	if !errors.Is(err, ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// TestBadRequest: a nil operation, request or URL is an error, not a panic.
func TestBadRequest(t *testing.T) {
	r := NewRunner()
	for _, c := range []struct {
		op  *Operation
		req *Request
	}{{nil, &Request{}}, {&unsafeOp, nil}, {&unsafeOp, &Request{}}} {
		if _, err := r.Do(context.Background(), c.op, c.req); err == nil || KeyOf(err) == "" {
			t.Fatalf("want an error with a key, got %v", err)
		}
	}
	var nilDoer nilResponseDoer
	_, err := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(nilDoer)).Do(context.Background(), &unsafeOp, &Request{URL: mustURL(t, "http://x")})
	if !errors.Is(err, errNilResponse) {
		t.Fatalf("err %v", err)
	}
}

type nilResponseDoer struct{}

func (nilResponseDoer) Do(*http.Request) (*http.Response, error) { return nil, nil }

// TestConcurrentCalls: one Runner shared by many goroutines (run with -race).
func TestConcurrentCalls(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503), ok200}}
	r := newTestRunner(d, newFakeClock(), WithBudget(Interactive, DefaultBudget(Interactive)))
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 10 {
				doCall(t, r, &keyedOp, "")
			}
		})
	}
	wg.Wait()
	if left := r.BudgetLeft(Interactive); left < 0 || left > 10 {
		t.Fatalf("budget %v out of range", left)
	}
}

// TestCancelledBeforeSending: a context that is already done sends nothing,
// and an unsafe call does not claim an unknown outcome.
func TestCancelledBeforeSending(t *testing.T) {
	d := &fakeDoer{script: []step{ok200}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newTestRunner(d, newFakeClock()).Do(ctx, &unsafeOp, &Request{Method: "POST", URL: mustURL(t, "http://api.test/x")})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrOutcomeUnknown) || d.count() != 0 {
		t.Fatalf("err %v, %d sent", err, d.count())
	}
}

// TestSlogHidesURL: logged transport errors drop the request URL, whose
// query string may hold an API key.
func TestSlogHidesURL(t *testing.T) {
	var buf bytes.Buffer
	r, _ := loopRunner(t, quickPolicy(), WithSlog(slog.New(slog.NewTextHandler(&buf, nil))))
	req := &Request{Method: "GET", URL: mustURL(t, "http://"+refusedAddr(t)+"/x?api_key=hunter2")}
	if _, err := r.Do(context.Background(), &idempotentOp, req); err == nil {
		t.Fatal("want an error")
	}
	if out := buf.String(); strings.Contains(out, "hunter2") || !strings.Contains(out, "connection refused") {
		t.Fatalf("log:\n%s", out)
	}
}

// TestStatusErrorBodyBounded: a large error body is cut at MaxErrorBody.
func TestStatusErrorBodyBounded(t *testing.T) {
	big := step{status: 500, body: strings.Repeat("e", MaxErrorBody+5000), wrote: 1, header: http.Header{"X-Request-Id": {"r1"}}}
	_, err, _ := doCall(t, newTestRunner(&fakeDoer{script: []step{big}}, newFakeClock()), &unsafeOp, "")
	var se *StatusError
	if !errors.As(err, &se) || len(se.Body) != MaxErrorBody || se.Header.Get("X-Request-Id") != "r1" {
		t.Fatalf("err %v, body %d bytes", err, len(se.Body))
	}
	// The engine's key was never sent (an unsafe operation): KeyOf has it,
	// the message does not; the request id is shown.
	if msg := se.Error(); msg != "createThing: HTTP 500 Internal Server Error (request id r1)" || se.Key == "" || se.RequestID != "r1" {
		t.Fatalf("message %q", msg)
	}
}

// TestLateWriteIsNotAReplay: the Transport may finish writing a request
// after the server already answered it; that late event, arriving during the
// next attempt, must not count as a replay of that attempt.
func TestLateWriteIsNotAReplay(t *testing.T) {
	var earlier *httptrace.ClientTrace
	d := doerFunc(func(r *http.Request) (*http.Response, error) {
		tr := httptrace.ContextClientTrace(r.Context())
		status := 200
		if earlier == nil {
			earlier, status = tr, 503
		} else {
			earlier.WroteRequest(httptrace.WroteRequestInfo{})
		}
		tr.WroteRequest(httptrace.WroteRequestInfo{})
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody}, nil
	})
	_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, "")
	if err != nil || len(log) != 2 || log[1].Reason != ReasonStatus {
		t.Fatalf("err %v, records %+v", err, log)
	}
}

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

// heldDoer holds every request until the test answers it, or until its
// context ends (unless stubborn: a Doer that ignores cancellation). Each
// request is announced on arrived.
type heldDoer struct {
	mu       sync.Mutex
	reqs     []*heldReq
	arrived  chan *heldReq
	stubborn bool
}

// heldReq is one request the doer holds; closed is closed when the body of
// the response it was answered with is closed.
type heldReq struct {
	r      *http.Request
	answer chan step
	closed chan struct{}
}

func newHeldDoer() *heldDoer { return &heldDoer{arrived: make(chan *heldReq, 64)} }

func (d *heldDoer) Do(r *http.Request) (*http.Response, error) {
	h := &heldReq{r: r, answer: make(chan step, 1), closed: make(chan struct{})}
	d.mu.Lock()
	d.reqs = append(d.reqs, h)
	d.mu.Unlock()
	if t := httptrace.ContextClientTrace(r.Context()); t != nil {
		if t.GetConn != nil {
			t.GetConn(r.URL.Host)
		}
		t.WroteRequest(httptrace.WroteRequestInfo{})
	}
	d.arrived <- h
	done := r.Context().Done()
	if d.stubborn {
		done = nil
	}
	select {
	case s := <-h.answer:
		body := &closeSignal{Reader: strings.NewReader(s.body), closed: h.closed}
		return &http.Response{StatusCode: s.status, Header: http.Header{}, Body: body, Request: r}, nil
	case <-done:
		return nil, r.Context().Err()
	}
}

func (d *heldDoer) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.reqs)
}

// closeSignal is a body that closes a channel when closed.
type closeSignal struct {
	io.Reader
	once   sync.Once
	closed chan struct{}
}

func (b *closeSignal) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// waitFor fails the test when ch yields nothing in 5s: a hang is a bug,
// and no test waits this long when the engine is right.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// hedgeResult is what a call made in the background returned.
type hedgeResult struct {
	body string
	err  error
	log  []Attempt
}

// goCall runs doCall on its own goroutine.
func goCall(t *testing.T, ctx context.Context, r *Runner, op *Operation, opts ...CallOption) <-chan hedgeResult {
	out := make(chan hedgeResult, 1)
	go func() {
		var log []Attempt
		req := &Request{Method: op.Method, URL: mustURL(t, "http://hedge.test"+op.Path), Body: []byte("payload")}
		resp, err := r.Do(ctx, op, req, append(opts, WithAttemptLog(&log))...)
		res := hedgeResult{err: err, log: log}
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			res.body = string(b)
		}
		out <- res
	}()
	return out
}

// hedgeRig is a hedged Runner on a held doer and a timer clock; ticks
// hears of each hedge timer's decision.
type hedgeRig struct {
	d     *heldDoer
	clk   *timerClock
	r     *Runner
	ticks chan bool
}

func newHedgeRig(p HedgePolicy, opts ...Option) *hedgeRig {
	g := &hedgeRig{d: newHeldDoer(), clk: newTimerClock(), ticks: make(chan bool, 64)}
	g.clk.armed = make(chan struct{}, 64)
	g.r = newTestRunner(g.d, g.clk, append([]Option{WithHedging(p)}, opts...)...)
	g.r.hedgeTick = func(sent bool) { g.ticks <- sent }
	return g
}

// TestHedgeFirstAnswerWinsAndTheSlowSendIsCancelled: the first send has no
// answer after After, so a hedge leaves; its answer settles the call, the
// first send's context is cancelled, and the records say so: attempt 1
// cancelled (ErrHedgeLost), attempt 2 a hedge that won.
func TestHedgeFirstAnswerWinsAndTheSlowSendIsCancelled(t *testing.T) {
	g := newHedgeRig(HedgePolicy{After: 50 * time.Millisecond, MaxAttempts: 2})
	res := goCall(t, context.Background(), g.r, &idempotentOp)
	first := waitFor(t, g.d.arrived, "the first send")
	waitFor(t, g.clk.armed, "the hedge timer")
	g.clk.Advance(50 * time.Millisecond)
	second := waitFor(t, g.d.arrived, "the hedge")
	if string(mustRead(t, second.r)) != "payload" {
		t.Fatal("the hedge did not send the call's body")
	}
	second.answer <- step{status: 200, body: "from the hedge"}
	got := waitFor(t, res, "the call")
	if got.err != nil || got.body != "from the hedge" {
		t.Fatalf("call: %q, %v", got.body, got.err)
	}
	waitFor(t, first.r.Context().Done(), "the loser's cancellation")
	if n := g.d.count(); n != 2 {
		t.Fatalf("%d sends; want 2", n)
	}
	l := got.log
	if len(l) != 2 || l[0].Number != 1 || l[0].Reason != ReasonFirst || l[0].Outcome != OutcomeCancelled ||
		!errors.Is(l[0].Err, ErrHedgeLost) || l[0].Final ||
		l[1].Number != 2 || l[1].Reason != ReasonHedge || !l[1].Final || l[1].Outcome != OutcomeSuccess ||
		l[1].Wait != 50*time.Millisecond {
		t.Fatalf("records %+v", l)
	}
}

func mustRead(t *testing.T, r *http.Request) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHedgeNeverLeavesForUnsafeOrKeyedOperations: with hedging on for the
// client, an unsafe call and a keyed call whose first send hangs past any
// delay make one send each, and arm no hedge timer; so do idempotent calls
// with NoRetry or one attempt allowed.
func TestHedgeNeverLeavesForUnsafeOrKeyedOperations(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   *Operation
		opts []CallOption
	}{
		{"unsafe", &unsafeOp, nil},
		{"keyed", &keyedOp, nil},
		{"idempotent, NoRetry", &idempotentOp, []CallOption{NoRetry()}},
		{"idempotent, one attempt", &idempotentOp, []CallOption{WithMaxAttempts(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newHedgeRig(HedgePolicy{After: time.Millisecond, MaxAttempts: 3})
			res := goCall(t, context.Background(), g.r, tc.op, tc.opts...)
			first := waitFor(t, g.d.arrived, "the first send")
			g.clk.Advance(time.Hour)
			first.answer <- step{status: 200, body: "ok"}
			got := waitFor(t, res, "the call")
			if got.err != nil || g.d.count() != 1 || len(g.clk.armed) != 0 || len(got.log) != 1 || got.log[0].Reason != ReasonFirst {
				t.Fatalf("err %v, %d sends, %d timers, records %+v", got.err, g.d.count(), len(g.clk.armed), got.log)
			}
		})
	}
}

// TestHedgeKeepsAtMostMaxAttemptsInFlight: with MaxAttempts 3, two hedges
// leave, one delay apart, and no third timer is armed.
func TestHedgeKeepsAtMostMaxAttemptsInFlight(t *testing.T) {
	g := newHedgeRig(HedgePolicy{After: 10 * time.Millisecond, MaxAttempts: 3})
	res := goCall(t, context.Background(), g.r, &idempotentOp)
	var held []*heldReq
	held = append(held, waitFor(t, g.d.arrived, "the first send"))
	for i := range 2 {
		waitFor(t, g.clk.armed, "a hedge timer")
		g.clk.Advance(10 * time.Millisecond)
		if !waitFor(t, g.ticks, "the hedge decision") {
			t.Fatalf("hedge %d refused", i+1)
		}
		held = append(held, waitFor(t, g.d.arrived, "a hedge"))
	}
	held[0].answer <- step{status: 200, body: "first"}
	got := waitFor(t, res, "the call")
	if got.err != nil || got.body != "first" || g.d.count() != 3 || len(g.clk.armed) != 0 {
		t.Fatalf("%q %v: %d sends, %d more timers", got.body, got.err, g.d.count(), len(g.clk.armed))
	}
	if l := got.log; len(l) != 3 || l[0].Outcome != OutcomeCancelled || l[1].Outcome != OutcomeCancelled ||
		l[2].Number != 1 || !l[2].Final {
		t.Fatalf("records %+v", l)
	}
}

// TestHedgeLoserAnswerIsDrainedAndClosed: a Doer that ignores
// cancellation answers the losing send after the call returned; that
// answer's body is closed by the engine, and the call did not wait for it.
func TestHedgeLoserAnswerIsDrainedAndClosed(t *testing.T) {
	g := newHedgeRig(HedgePolicy{After: 10 * time.Millisecond, MaxAttempts: 2})
	g.d.stubborn = true
	res := goCall(t, context.Background(), g.r, &idempotentOp)
	first := waitFor(t, g.d.arrived, "the first send")
	waitFor(t, g.clk.armed, "the hedge timer")
	g.clk.Advance(10 * time.Millisecond)
	second := waitFor(t, g.d.arrived, "the hedge")
	second.answer <- step{status: 200, body: "hedge"}
	if got := waitFor(t, res, "the call"); got.err != nil || got.body != "hedge" {
		t.Fatalf("call: %q %v", got.body, got.err)
	}
	first.answer <- step{status: 200, body: "late"}
	waitFor(t, first.closed, "the loser's body to be closed")
}

// TestHedgeRetryableFailureWaitsForTheOthers: a send that fails with a
// retryable status while a hedge is in flight is recorded, and the round
// waits for the hedge; when every send of a round failed, the ordinary gate
// retries after its backoff, as for a lone send.
func TestHedgeRetryableFailureWaitsForTheOthers(t *testing.T) {
	seen := make(chan Attempt, 16)
	g := newHedgeRig(HedgePolicy{After: 10 * time.Millisecond, MaxAttempts: 2},
		WithObserver(ObserverFunc(func(_ context.Context, a Attempt) { seen <- a })))
	res := goCall(t, context.Background(), g.r, &idempotentOp)
	first := waitFor(t, g.d.arrived, "the first send")
	waitFor(t, g.clk.armed, "the hedge timer")
	g.clk.Advance(10 * time.Millisecond)
	second := waitFor(t, g.d.arrived, "the hedge")
	first.answer <- step{status: 503, body: "busy"}
	if a := waitFor(t, seen, "the 503's record"); a.Number != 1 || a.StatusCode != 503 || a.Final {
		t.Fatalf("record %+v", a)
	}
	second.answer <- step{status: 503, body: "busy"}
	third := waitFor(t, g.d.arrived, "the retry")
	third.answer <- step{status: 200, body: "third"}
	got := waitFor(t, res, "the call")
	if got.err != nil || got.body != "third" || g.d.count() != 3 {
		t.Fatalf("%q %v, %d sends", got.body, got.err, g.d.count())
	}
	l := got.log
	if len(l) != 3 || l[1].Reason != ReasonHedge || l[1].StatusCode != 503 || l[2].Reason != ReasonStatus ||
		l[2].WaitSource != WaitBackoff || l[2].Number != 3 || !l[2].Final {
		t.Fatalf("records %+v", l)
	}
}

// TestHedgeUnderOutagePaysTheBudget: the host answers nothing (each call
// ends when its caller gives up). Ten calls make ten first sends and as
// many hedges as the retry budget pays for (capacity 3, cost 1, nothing
// refilled): thirteen sends, however many calls.
func TestHedgeUnderOutagePaysTheBudget(t *testing.T) {
	pol := quickPolicy()
	g := newHedgeRig(HedgePolicy{After: 10 * time.Millisecond, MaxAttempts: 2},
		WithBudget(Interactive, Budget{Capacity: 3, RetryCost: 1, SuccessRefill: 0.5}), WithPolicy(Interactive, pol))
	hedges := 0
	for range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		res := goCall(t, ctx, g.r, &idempotentOp)
		waitFor(t, g.d.arrived, "the first send")
		waitFor(t, g.clk.armed, "the hedge timer")
		g.clk.Advance(10 * time.Millisecond)
		if waitFor(t, g.ticks, "the hedge decision") {
			hedges++
			waitFor(t, g.d.arrived, "the hedge")
		}
		cancel()
		if got := waitFor(t, res, "the call"); !errors.Is(got.err, context.Canceled) {
			t.Fatalf("err %v", got.err)
		}
	}
	if hedges != 3 || g.d.count() != 13 || g.r.BudgetLeft(Interactive) != 0 {
		t.Fatalf("%d hedges, %d sends, budget %v; want 3, 13, 0", hedges, g.d.count(), g.r.BudgetLeft(Interactive))
	}
}

// TestHedgeAsksTheAdaptiveThrottle: a hedge passes the host's adaptive
// throttle like a retry: with the host failing most requests, the throttle
// lets the first send through (draw 0.95) and refuses the hedge (draw
// 0.1), so one send is made.
func TestHedgeAsksTheAdaptiveThrottle(t *testing.T) {
	draws := []float64{0.95, 0.1}
	var mu sync.Mutex
	draw := func() float64 {
		mu.Lock()
		defer mu.Unlock()
		v := draws[0]
		if len(draws) > 1 {
			draws = draws[1:]
		}
		return v
	}
	g := newHedgeRig(HedgePolicy{After: 10 * time.Millisecond, MaxAttempts: 2},
		WithAdaptiveThrottle(2), WithAdaptiveThrottleWindow(time.Hour), WithRandom(draw))
	host := mustURL(t, "http://hedge.test")
	th := g.r.throttles.forURL(host, g.clk.Now())
	for range 100 {
		th.record(g.clk.Now(), false)
	}
	res := goCall(t, context.Background(), g.r, &idempotentOp)
	first := waitFor(t, g.d.arrived, "the first send")
	waitFor(t, g.clk.armed, "the hedge timer")
	g.clk.Advance(10 * time.Millisecond)
	if waitFor(t, g.ticks, "the hedge decision") {
		t.Fatal("the throttle let the hedge leave")
	}
	first.answer <- step{status: 200, body: "ok"}
	if got := waitFor(t, res, "the call"); got.err != nil || g.d.count() != 1 {
		t.Fatalf("err %v, %d sends", got.err, g.d.count())
	}
}

// TestHedgeAfterZeroWaitsForTheSketch: After 0 hedges at the operation's
// recent p95; before the sketch has 100 answers, calls are not hedged (no
// timer), and once it has, the hedge leaves at the p95.
func TestHedgeAfterZeroWaitsForTheSketch(t *testing.T) {
	g := newHedgeRig(HedgePolicy{MaxAttempts: 2})
	for i := range 100 {
		res := goCall(t, context.Background(), g.r, &idempotentOp)
		h := waitFor(t, g.d.arrived, "a warm-up send")
		// Answers taking 1..100ms: the p95 is 95ms.
		g.clk.Advance(time.Duration(i+1) * time.Millisecond)
		h.answer <- step{status: 200, body: "ok"}
		if got := waitFor(t, res, "a warm-up call"); got.err != nil || len(got.log) != 1 {
			t.Fatalf("warm-up %d: %v %+v", i, got.err, got.log)
		}
	}
	if len(g.clk.armed) != 0 {
		t.Fatalf("%d hedge timers armed during warm-up", len(g.clk.armed))
	}
	res := goCall(t, context.Background(), g.r, &idempotentOp)
	first := waitFor(t, g.d.arrived, "the first send")
	waitFor(t, g.clk.armed, "the hedge timer")
	g.clk.Advance(94 * time.Millisecond)
	select {
	case <-g.ticks:
		t.Fatal("hedged before the p95")
	default:
	}
	g.clk.Advance(time.Millisecond)
	if !waitFor(t, g.ticks, "the hedge decision") {
		t.Fatal("hedge refused")
	}
	waitFor(t, g.d.arrived, "the hedge")
	first.answer <- step{status: 200, body: "ok"}
	if got := waitFor(t, res, "the call"); got.err != nil || len(got.log) != 2 || got.log[0].Reason != ReasonHedge || got.log[0].Wait != 95*time.Millisecond {
		t.Fatalf("%v %+v", got.err, got.log)
	}
}

// TestLatencySketchP95: the p95 is the nearest rank of the last 128
// durations, none before 100 (two slow answers among the first 32 would
// otherwise make the p95 the slow time itself, and leave the slow calls it
// should hedge unhedged), and old durations leave the ring.
func TestLatencySketchP95(t *testing.T) {
	var k latencySketch
	for i := range 99 {
		k.add(time.Duration(i+1) * time.Millisecond)
	}
	if q := k.quantile(); q != 0 {
		t.Fatalf("p95 %v before 100 samples", q)
	}
	k.add(100 * time.Millisecond)
	if q := k.quantile(); q != 95*time.Millisecond {
		t.Fatalf("p95 of 1..100ms: %v", q)
	}
	for range 128 {
		k.add(time.Millisecond)
	}
	if q := k.quantile(); q != time.Millisecond {
		t.Fatalf("p95 after 128 fresh samples of 1ms: %v", q)
	}
}

// TestSlogNamesAHedgesLoser: the slog observer logs a hedged round's loser
// with its reason and outcome "cancelled", as it does a final record's.
func TestSlogNamesAHedgesLoser(t *testing.T) {
	var buf bytes.Buffer
	o := SlogObserver(slog.New(slog.NewJSONHandler(&buf, nil)))
	o.ObserveAttempt(context.Background(), Attempt{Operation: "getOrder", Number: 1, Reason: ReasonFirst, Outcome: OutcomeCancelled, Err: ErrHedgeLost})
	o.ObserveAttempt(context.Background(), Attempt{Operation: "getOrder", Number: 2, Reason: ReasonHedge, StatusCode: 200, Final: true, Outcome: OutcomeSuccess})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"outcome":"cancelled"`) ||
		!strings.Contains(lines[1], `"reason":"hedge"`) || !strings.Contains(lines[1], `"outcome":"success"`) {
		t.Fatalf("log:\n%s", buf.String())
	}
}

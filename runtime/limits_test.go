package runtime

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func retryAfter(code int, v string) step {
	s := answer(code)
	s.header = http.Header{"Retry-After": {v}}
	return s
}

// TestRetryAfterHonoured: the server's hint replaces backoff and is recorded
// as the wait's source.
func TestRetryAfterHonoured(t *testing.T) {
	clk := newFakeClock()
	d := &fakeDoer{script: []step{retryAfter(503, "2"), ok200}}
	_, err, log := doCall(t, newTestRunner(d, clk), &idempotentOp, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := clk.Sleeps(); len(got) != 1 || got[0] != 2*time.Second {
		t.Fatalf("slept %v, want [2s]", got)
	}
	if log[1].Wait != 2*time.Second || log[1].WaitSource != WaitRetryAfter || log[1].Reason != ReasonStatus {
		t.Fatalf("second record %+v", log[1])
	}
	if log[0].StatusCode != 503 || log[0].Final || !log[1].Final || log[1].Outcome != OutcomeSuccess {
		t.Fatalf("records %+v", log)
	}
}

// TestRetryAfterGarbageUsesBackoff: a bad hint is ignored, not obeyed.
func TestRetryAfterGarbageUsesBackoff(t *testing.T) {
	for _, v := range []string{"-5", "soon", "99999999999999999999"} {
		clk := newFakeClock()
		d := &fakeDoer{script: []step{retryAfter(503, v), ok200}}
		_, err, log := doCall(t, newTestRunner(d, clk), &idempotentOp, "")
		if err != nil || log[1].WaitSource != WaitBackoff {
			t.Fatalf("%q: err %v, records %+v", v, err, log)
		}
		// quickPolicy: first retry waits 0.5 * min(10ms, 1ms).
		if got := clk.Sleeps(); len(got) != 1 || got[0] != 500*time.Microsecond {
			t.Fatalf("%q: slept %v", v, got)
		}
	}
}

// TestRetryAfterCeiling: a hint above MaxRetryAfter stops the call at once,
// without sleeping, and the error carries the hint.
func TestRetryAfterCeiling(t *testing.T) {
	clk := newFakeClock()
	d := &fakeDoer{script: []step{retryAfter(503, "10"), ok200}}
	p := quickPolicy()
	p.MaxRetryAfter = 3 * time.Second
	_, err, log := doCall(t, newTestRunner(d, clk, WithPolicy(Interactive, p)), &idempotentOp, "")
	var se *StatusError
	if !errors.As(err, &se) || !errors.Is(err, ErrRetryAfterTooLong) || se.RetryAfter != 10*time.Second {
		t.Fatalf("err %v", err)
	}
	if len(clk.Sleeps()) != 0 || len(log) != 1 || d.count() != 1 {
		t.Fatalf("slept %v, %d attempts", clk.Sleeps(), len(log))
	}
}

// TestRetryAfterBeyondDeadline: a hint longer than the time left stops the
// call at once too, whether the deadline is the policy's or the context's.
func TestRetryAfterBeyondDeadline(t *testing.T) {
	p := quickPolicy()
	p.MaxRetryAfter = 0 // no ceiling: only the deadline applies
	p.Timeout = 5 * time.Second
	for _, withCtx := range []bool{false, true} {
		clk := newFakeClock()
		d := &fakeDoer{script: []step{retryAfter(429, "6"), ok200}}
		r := newTestRunner(d, clk, WithPolicy(Interactive, p))
		ctx := context.Background()
		if withCtx {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, 4*time.Second)
			defer cancel()
		}
		_, err := r.Do(ctx, &unsafeOp, &Request{Method: "POST", URL: mustURL(t, "http://api.test/x")})
		if !errors.Is(err, ErrRetryAfterTooLong) || len(clk.Sleeps()) != 0 || d.count() != 1 {
			t.Fatalf("ctx deadline %v: err %v, slept %v", withCtx, err, clk.Sleeps())
		}
		var se *StatusError
		if !errors.As(err, &se) || se.RetryAfter != 6*time.Second {
			t.Fatalf("ctx deadline %v: the error does not carry the 6s hint: %#v", withCtx, err)
		}
	}
}

// TestDeadlineStopsBackoff: when backoff plus a minimal attempt cannot fit,
// the call stops with ErrDeadline before sleeping.
func TestDeadlineStopsBackoff(t *testing.T) {
	clk := newFakeClock()
	d := &fakeDoer{script: []step{refused}}
	p := Policy{MaxAttempts: 10, BaseDelay: time.Second, MaxDelay: time.Minute, Timeout: 4 * time.Second, MinAttempt: time.Second}
	r := newTestRunner(d, clk, WithPolicy(Interactive, p), WithRandom(func() float64 { return 0.99 }))
	_, err, log := doCall(t, r, &unsafeOp, "")
	// Waits 0.99s then 1.98s fit in 4s (with 1s per attempt); the third,
	// 3.96s, does not.
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, ErrDeadline) || len(log) != 3 {
		t.Fatalf("err %v after %d attempts", err, len(log))
	}
	if got := clk.Sleeps(); len(got) != 2 {
		t.Fatalf("slept %v", got)
	}
	if log[0].TimeLeft != 4*time.Second || log[1].TimeLeft != 4*time.Second-990*time.Millisecond {
		t.Fatalf("time left %v, %v", log[0].TimeLeft, log[1].TimeLeft)
	}
}

// TestMaxAttempts: the limit counts every send and names itself.
func TestMaxAttempts(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503)}}
	_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, "")
	var se *StatusError
	if !errors.As(err, &se) || !errors.Is(err, ErrAttemptsExhausted) || se.StatusCode != 503 || len(log) != 3 || d.count() != 3 {
		t.Fatalf("err %v after %d attempts", err, len(log))
	}
	if len(se.Attempts) != 3 || se.Key == "" || se.Key != KeyOf(err) {
		t.Fatalf("error carries %d attempts, key %q", len(se.Attempts), se.Key)
	}
}

// TestInProgressRunsOut: a keyed call that keeps getting 409 says so and
// names the limit.
func TestInProgressRunsOut(t *testing.T) {
	d := &fakeDoer{script: []step{answer(409)}}
	_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, "k-1")
	if !errors.Is(err, ErrInProgress) || !errors.Is(err, ErrAttemptsExhausted) || len(log) != 3 {
		t.Fatalf("err %v after %d attempts", err, len(log))
	}
	if log[1].Reason != ReasonInProgress || KeyOf(err) != "k-1" {
		t.Fatalf("records %+v", log)
	}
}

// TestCancelDuringWait: a context cancelled while waiting ends the call
// with the context's error and a final record.
func TestCancelDuringWait(t *testing.T) {
	clk := newFakeClock()
	ctx, cancel := context.WithCancel(context.Background())
	clk.onSleep = cancel
	d := &fakeDoer{script: []step{answer(503), ok200}}
	var log []Attempt
	_, err := newTestRunner(d, clk).Do(ctx, &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")}, WithAttemptLog(&log))
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) || ce.Reason != nil {
		t.Fatalf("err %v", err)
	}
	if len(log) != 1 || !log[0].Final || log[0].StatusCode != 503 || d.count() != 1 {
		t.Fatalf("records %+v", log)
	}
}

// TestObserverHearsAttemptBeforeWait: an attempt's record reaches observers
// before the wait that follows it, not minutes later; when the call then ends
// during that wait, the same attempt is sent again, now final.
func TestObserverHearsAttemptBeforeWait(t *testing.T) {
	clk := newFakeClock()
	ctx, cancel := context.WithCancel(context.Background())
	var seen []Attempt
	heardBeforeWait := false
	clk.onSleep = func() {
		heardBeforeWait = len(seen) == 1 && !seen[0].Final && seen[0].StatusCode == 503
		cancel()
	}
	d := &fakeDoer{script: []step{answer(503), ok200}}
	r := newTestRunner(d, clk, WithObserver(ObserverFunc(func(_ context.Context, a Attempt) { seen = append(seen, a) })))
	var log []Attempt
	_, err := r.Do(ctx, &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")}, WithAttemptLog(&log))
	if !errors.Is(err, context.Canceled) || !heardBeforeWait {
		t.Fatalf("err %v; observer had %+v when the wait began", err, seen)
	}
	if len(seen) != 2 || seen[1].Number != seen[0].Number || !seen[1].Final || len(log) != 1 || !log[0].Final {
		t.Fatalf("events %+v, log %+v; want the attempt then its final form, one record", seen, log)
	}
}

// TestUnknownNeverHidden: a safe call whose written attempts were lost and
// that ends on a limit matches ErrOutcomeUnknown as well as the limit,
// unless a later answer settled the doubt; "never sent" and "the server
// said no" are distinct outcomes.
func TestUnknownNeverHidden(t *testing.T) {
	cases := []struct {
		name    string
		op      *Operation
		key     string
		script  []step
		limit   error
		unknown bool
		outcome Outcome
	}{
		{"keyed, every attempt lost", &keyedOp, "", []step{reset}, ErrAttemptsExhausted, true, OutcomeUnknown},
		{"idempotent, lost then 503s", &idempotentOp, "", []step{reset, answer(503)}, ErrAttemptsExhausted, true, OutcomeUnknown},
		{"keyed, in progress to the end", &keyedOp, "k-1", []step{answer(409)}, ErrAttemptsExhausted, true, OutcomeUnknown},
		{"lost, then a definite 404", &idempotentOp, "", []step{reset, answer(404)}, nil, false, OutcomeRejected},
		{"refused every time", &idempotentOp, "", []step{refused}, ErrAttemptsExhausted, false, OutcomeNotSent},
		{"503 every time", &idempotentOp, "", []step{answer(503)}, ErrAttemptsExhausted, false, OutcomeRejected},
	}
	for _, c := range cases {
		_, err, log := doCall(t, newTestRunner(&fakeDoer{script: c.script}, newFakeClock()), c.op, c.key)
		if errors.Is(err, ErrOutcomeUnknown) != c.unknown || (c.limit != nil && !errors.Is(err, c.limit)) || err == nil {
			t.Errorf("%s: %v; want unknown %v and limit %v", c.name, err, c.unknown, c.limit)
		}
		if got := log[len(log)-1].Outcome; got != c.outcome {
			t.Errorf("%s: outcome %v, want %v", c.name, got, c.outcome)
		}
	}
	// The deadline: backoff no longer fits after two lost attempts.
	p := Policy{MaxAttempts: 10, BaseDelay: time.Second, MaxDelay: time.Minute, Timeout: 4 * time.Second, MinAttempt: time.Second}
	r := newTestRunner(&fakeDoer{script: []step{reset}}, newFakeClock(), WithPolicy(Interactive, p), WithRandom(func() float64 { return 0.99 }))
	_, err, _ := doCall(t, r, &keyedOp, "")
	if !errors.Is(err, ErrDeadline) || !errors.Is(err, ErrOutcomeUnknown) || KeyOf(err) == "" {
		t.Fatalf("deadline: %v", err)
	}
}

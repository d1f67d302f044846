package runtime

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"
)

// payment is a result the scripted polls return.
type payment struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// poll is one scripted poll: a result, or a status error (with its
// headers), and the headers of a successful answer.
type poll struct {
	status string
	code   int
	header http.Header
}

// script is a fake operation whose n-th call answers polls[n] (the last
// one again once they run out); it counts its calls.
type script struct {
	polls []poll
	calls int
}

func (s *script) fetch(_ context.Context, opts []CallOption) (*payment, error) {
	p := s.polls[min(s.calls, len(s.polls)-1)]
	s.calls++
	var cfg callConfig
	for _, o := range opts {
		o.applyCall(&cfg)
	}
	resp := &http.Response{StatusCode: 200, Header: p.header}
	if p.code != 0 {
		resp.StatusCode = p.code
	}
	if cfg.resp != nil {
		*cfg.resp = resp
	}
	if p.code != 0 {
		return nil, &StatusError{Operation: "getPayment", StatusCode: p.code, Header: p.header}
	}
	return &payment{ID: "pay_1", Status: p.status}, nil
}

func polls(states ...string) *script {
	s := &script{}
	for _, st := range states {
		s.polls = append(s.polls, poll{status: st})
	}
	return s
}

// succeeded is the waiter of the tests: 2s base, 8s ceiling, 1 minute.
var succeeded = Waiter{
	Name:   "PaymentSucceeded",
	Until:  Match{Pointer: "/status", In: []string{"succeeded"}},
	FailOn: Match{Pointer: "/status", In: []string{"failed", "canceled"}},
	Delay:  2 * time.Second, MaxDelay: 8 * time.Second, Timeout: time.Minute,
}

// waitRunner has a fake clock, a jitter source that always draws 0 (the
// shortest pause, half the delay) and the given budget.
func waitRunner(b Budget) (*Runner, *fakeClock) {
	clk := newFakeClock()
	return NewRunner(WithoutAdaptiveThrottle(), WithClock(clk), WithRandom(func() float64 { return 0 }), WithBudget(Interactive, b)), clk
}

func TestWaitEndsWithTheResultOnUntil(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	s := polls("pending", "pending", "pending", "pending", "succeeded")
	got, err := Wait(context.Background(), r, &succeeded, s.fetch)
	if err != nil || got == nil || got.Status != "succeeded" {
		t.Fatalf("Wait = %+v, %v; want the succeeded payment", got, err)
	}
	if s.calls != 5 {
		t.Errorf("%d polls, want 5", s.calls)
	}
	// d = 2s, 4s, 8s, 8s (the ceiling); the pause is d/2 with a zero draw.
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}
	if got := clk.Sleeps(); !slices.Equal(got, want) {
		t.Errorf("pauses %v, want %v", got, want)
	}
}

func TestWaitFailOnIsWaitErrorWithTheLastResult(t *testing.T) {
	r, _ := waitRunner(DefaultBudget(Interactive))
	s := polls("pending", "canceled")
	got, err := Wait(context.Background(), r, &succeeded, s.fetch)
	var we *WaitError
	if got != nil || !errors.Is(err, ErrWaitFailed) || !errors.As(err, &we) {
		t.Fatalf("Wait = %v, %v; want a *WaitError matching ErrWaitFailed", got, err)
	}
	if last, _ := we.Last.(*payment); last == nil || last.Status != "canceled" || we.Value != "canceled" || we.Polls != 2 {
		t.Errorf("WaitError = %+v, want Last the canceled payment after 2 polls", we)
	}
	if errors.Is(err, ErrWaitTimeout) {
		t.Error("a failed wait also matches ErrWaitTimeout")
	}
}

func TestWaitTimesOutWithoutSleepingPastTheDeadline(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	s := polls("pending")
	start := clk.Now()
	_, err := Wait(context.Background(), r, &succeeded, s.fetch, WithWaitTimeout(20*time.Second))
	var we *WaitError
	if !errors.Is(err, ErrWaitTimeout) || !errors.As(err, &we) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a *WaitError matching ErrWaitTimeout only", err)
	}
	// 0s, 1s, 3s, 7s, 11s, 15s, 19s polls; the next would be at 23s.
	if elapsed := clk.Now().Sub(start); s.calls != 7 || elapsed != 19*time.Second {
		t.Errorf("%d polls over %v, want 7 over 19s", s.calls, elapsed)
	}
	if last, _ := we.Last.(*payment); last == nil || last.Status != "pending" {
		t.Errorf("Last = %v, want the pending payment", we.Last)
	}
}

func TestWaitContextDeadlineWins(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	s := polls("pending")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := clk.Now()
	_, err := Wait(ctx, r, &succeeded, s.fetch)
	if !errors.Is(err, ErrWaitTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrWaitTimeout and context.DeadlineExceeded", err)
	}
	if elapsed := clk.Now().Sub(start); elapsed >= 10*time.Second {
		t.Errorf("waited %v on the clock, past the context's 10s", elapsed)
	}
}

func TestWaitHonoursRetryAfterOnASuccess(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	s := &script{polls: []poll{{status: "pending", header: http.Header{"Retry-After": {"7"}}}, {status: "succeeded"}}}
	if _, err := Wait(context.Background(), r, &succeeded, s.fetch); err != nil {
		t.Fatal(err)
	}
	if got := clk.Sleeps(); !slices.Equal(got, []time.Duration{7 * time.Second}) {
		t.Errorf("pauses %v, want the server's 7s", got)
	}
}

func TestWaitRetryAfterPastTheDeadlineEndsAtOnce(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	s := &script{polls: []poll{{status: "pending", header: http.Header{"Retry-After": {"120"}}}}}
	_, err := Wait(context.Background(), r, &succeeded, s.fetch)
	if !errors.Is(err, ErrWaitTimeout) || s.calls != 1 || len(clk.Sleeps()) != 0 {
		t.Fatalf("err = %v after %d polls and pauses %v; want ErrWaitTimeout at once", err, s.calls, clk.Sleeps())
	}
}

func TestWaitRepeatsA503AfterItsRetryAfter(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	s := &script{polls: []poll{{code: 503, header: http.Header{"Retry-After": {"9"}}}, {status: "succeeded"}}}
	if _, err := Wait(context.Background(), r, &succeeded, s.fetch); err != nil {
		t.Fatal(err)
	}
	if got := clk.Sleeps(); !slices.Equal(got, []time.Duration{9 * time.Second}) {
		t.Errorf("pauses %v, want the server's 9s", got)
	}
	if left := r.BudgetLeft(Interactive); left != 9 {
		// One token taken for the repeated poll (the script makes no
		// real call, so no success refills it).
		t.Errorf("budget left %v, want 9", left)
	}
}

func TestWaitRepeatedErrorsSpendTheBudget(t *testing.T) {
	r, _ := waitRunner(Budget{Capacity: 2, RetryCost: 1})
	s := &script{polls: []poll{{code: 503}}}
	_, err := Wait(context.Background(), r, &succeeded, s.fetch)
	var se *StatusError
	if !errors.Is(err, ErrBudgetExhausted) || !errors.As(err, &se) || se.StatusCode != 503 {
		t.Fatalf("err = %v, want ErrBudgetExhausted with the 503", err)
	}
	if s.calls != 3 {
		t.Errorf("%d polls, want 3 (two repeats paid by the budget)", s.calls)
	}
}

func TestWaitPendingStatusGoesOnOtherErrorsEnd(t *testing.T) {
	notYet := []poll{{code: 404}, {code: 404}, {status: "succeeded"}}
	r, _ := waitRunner(DefaultBudget(Interactive))
	s := &script{polls: notYet}
	_, err := Wait(context.Background(), r, &succeeded, s.fetch)
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || s.calls != 1 {
		t.Fatalf("without PendingStatus: %v after %d polls, want the 404 after 1", err, s.calls)
	}
	w := succeeded
	w.PendingStatus = []int{404}
	s = &script{polls: notYet}
	if got, err := Wait(context.Background(), r, &w, s.fetch); err != nil || got.Status != "succeeded" || s.calls != 3 {
		t.Fatalf("with PendingStatus 404: %v, %v after %d polls, want success after 3", got, err, s.calls)
	}
}

func TestWaitCancelledContext(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	ctx, cancel := context.WithCancel(context.Background())
	clk.onSleep = cancel
	_, err := Wait(ctx, r, &succeeded, polls("pending").fetch)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrWaitTimeout) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestWaitOptionsOverrideTheWaiter(t *testing.T) {
	r, clk := waitRunner(DefaultBudget(Interactive))
	s := polls("pending", "succeeded")
	var log []Attempt
	_, err := Wait(context.Background(), r, &succeeded, s.fetch,
		WithWaitDelay(10*time.Second), WithWaitMaxDelay(20*time.Second), WithWaitCallOptions(WithAttemptLog(&log)))
	if err != nil {
		t.Fatal(err)
	}
	if got := clk.Sleeps(); !slices.Equal(got, []time.Duration{5 * time.Second}) {
		t.Errorf("pauses %v, want 5s (half of WithWaitDelay's 10s)", got)
	}
}

func TestPollDelayBounds(t *testing.T) {
	for n := range 70 {
		for _, f := range []float64{0, 0.5, 0.999999} {
			d := pollDelay(n, 2*time.Second, 30*time.Second, func() float64 { return f })
			limit := min(30*time.Second, 2*time.Second<<min(n, 10))
			if d < limit/2 || d >= limit {
				t.Fatalf("pollDelay(%d) draw %v = %v, want in [%v, %v)", n, f, d, limit/2, limit)
			}
		}
	}
}

func TestMatchStringForms(t *testing.T) {
	doc, err := jsonValue(map[string]any{
		"status": "succeeded", "code": 2.0, "big": 12345678901234567, "ok": true, "none": nil,
		"a/b": map[string]any{"~x": "deep"}, "list": []any{"zero", "one"}, "obj": map[string]any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ptr, in string
		want    bool
	}{
		{"/status", "succeeded", true}, {"/status", "failed", false},
		{"/code", "2", true}, {"/big", "12345678901234567", true},
		{"/ok", "true", true}, {"/none", "null", true},
		{"/a~1b/~0x", "deep", true}, {"/list/1", "one", true}, {"/list/01", "one", false},
		{"/list/2", "one", false}, {"/missing", "null", false}, {"/obj", "{}", false}, {"status", "succeeded", false},
	} {
		if _, got := (Match{Pointer: c.ptr, In: []string{c.in}}).match(doc); got != c.want {
			t.Errorf("match %s in [%s] = %v, want %v", c.ptr, c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{"2": "2", "2.0": "2", "2e0": "2", "-0": "0", "2.5": "2.5", "1e21": "1e+21", "x": "x"} {
		if got := NumberText(in); got != want {
			t.Errorf("NumberText(%q) = %q, want %q", in, got, want)
		}
	}
}

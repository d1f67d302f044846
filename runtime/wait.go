package runtime

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"
)

// Waiter is the contract of one named wait of a safe operation
// (x-waiters, docs/extensions.md): the conditions on the operation's result
// that end the wait, and the pace of its polls. Generated code declares one
// per waiter (var paymentSucceededWaiter = idemrt.Waiter{...}) and its
// Wait<Name> method calls Wait with it.
type Waiter struct {
	// Name is the waiter's name as the document wrote it
	// ("PaymentSucceeded"); errors carry it.
	Name string
	// Until ends the wait with the result when it matches.
	Until Match
	// FailOn, when it has values, ends the wait with a *WaitError matching
	// ErrWaitFailed when it matches. It is checked before Until.
	FailOn Match
	// PendingStatus lists the statuses of a poll's error that mean "not
	// there yet" (404 while a new resource is not yet visible): the wait
	// goes on, each such poll drawing a retry token from the budget.
	PendingStatus []int
	// Delay is the base pause between polls, MaxDelay its ceiling, Timeout
	// the longest the whole wait lasts; zero takes DefaultWaitDelay,
	// DefaultWaitMaxDelay, DefaultWaitTimeout.
	Delay, MaxDelay, Timeout time.Duration
}

// The defaults of a Waiter's zero durations.
const (
	DefaultWaitDelay    = 2 * time.Second
	DefaultWaitMaxDelay = 30 * time.Second
	DefaultWaitTimeout  = 5 * time.Minute
)

// Wait polls an operation until its result matches w.Until, and returns
// that result. fetch makes one call of the operation with the call options
// it is given (a generated Wait<Name> method passes a closure over its
// operation's method). The first poll is made at once; the pause before
// poll n+1 is a random time in [d/2, d), d = min(MaxDelay, Delay * 2^n),
// or the server's Retry-After when it asks for longer.
//
// Each poll is one call under the operation's retry contract: its
// retryable failures are retried inside it, drawing on the Runner's retry
// budget. A poll that ends with an error ends the wait with that error,
// except a status in w.PendingStatus, a 429 or a 503: those polls are
// repeated (after their Retry-After, if any), each taking a retry token,
// and an empty budget ends the wait with a *WaitError matching
// ErrBudgetExhausted.
//
// The wait ends with a *WaitError matching ErrWaitFailed when the result
// matches w.FailOn, and with one matching ErrWaitTimeout as soon as the
// next poll cannot start before the deadline: the earlier of w.Timeout
// (WithWaitTimeout) and ctx's deadline (then it also matches
// context.DeadlineExceeded). A cancelled ctx ends it with a *WaitError
// matching context.Canceled.
func Wait[R any](ctx context.Context, r *Runner, w *Waiter, fetch func(ctx context.Context, opts []CallOption) (R, error), opts ...WaitOption) (R, error) {
	res, err := newWaitRun(ctx, r, w, opts, func(ctx context.Context, opts []CallOption) (any, error) {
		return fetch(ctx, opts)
	}).loop(ctx)
	typed, _ := res.(R)
	return typed, err
}

// waitRun is the state of one wait. The loop is written against results
// erased to any so that it is compiled once, not once per result type (see
// pageFuncs).
type waitRun struct {
	r     *Runner
	w     *Waiter
	cfg   waitConfig
	fetch func(ctx context.Context, opts []CallOption) (any, error)
	// deadline is when the wait gives up; byCtx says it is ctx's.
	deadline time.Time
	byCtx    bool
	// call is the caller's call options applied, for their class, timeout
	// and WithResponse destination.
	call  *callConfig
	polls int
	last  any
}

// newWaitRun applies the options and fixes the deadline.
func newWaitRun(ctx context.Context, r *Runner, w *Waiter, opts []WaitOption, fetch func(context.Context, []CallOption) (any, error)) *waitRun {
	run := &waitRun{r: r, w: w, fetch: fetch, cfg: waitConfig{delay: w.Delay, maxDelay: w.MaxDelay, timeout: w.Timeout}}
	for _, o := range opts {
		if o != nil {
			o.applyWait(&run.cfg)
		}
	}
	run.cfg.fill()
	run.call = withOptions(r.defaults, run.cfg.callOpts)
	now := r.clock.Now()
	run.deadline = now.Add(run.cfg.timeout)
	if d, ok := ctx.Deadline(); ok {
		if left := time.Until(d); now.Add(left).Before(run.deadline) {
			run.deadline, run.byCtx = now.Add(left), true
		}
	}
	return run
}

// loop polls until an end: the result, or the error that stopped it.
func (run *waitRun) loop(ctx context.Context) (any, error) {
	for n := 0; ; n++ {
		res, resp, err := run.poll(ctx)
		hint, end, endErr := run.judge(res, resp, err)
		if end && endErr != nil {
			return nil, endErr
		}
		if end {
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, run.stopped(err)
		}
		pause := max(hint, pollDelay(n, run.cfg.delay, run.cfg.maxDelay, run.r.rand))
		if !run.r.clock.Now().Add(pause).Before(run.deadline) {
			return nil, run.timedOut(err)
		}
		if err := run.r.clock.Sleep(ctx, pause); err != nil {
			return nil, run.stopped(err)
		}
	}
}

// poll makes one call, bounded by the time the wait has left.
func (run *waitRun) poll(ctx context.Context) (any, *http.Response, error) {
	run.polls++
	var resp *http.Response
	opts := append(slices.Clip(run.cfg.callOpts), WithResponse(&resp))
	if left := run.deadline.Sub(run.r.clock.Now()); left < run.callTimeout() {
		opts = append(opts, WithTimeout(max(left, time.Nanosecond)))
	}
	res, err := run.fetch(ctx, opts)
	if run.call.resp != nil {
		*run.call.resp = resp
	}
	return res, resp, err
}

// callTimeout is the deadline a poll would have on its own: the caller's
// WithTimeout, else its class's policy's.
func (run *waitRun) callTimeout() time.Duration {
	switch t := run.call.timeout; {
	case t > 0:
		return t
	case t < 0:
		return maxHint
	}
	if t := run.r.policies[run.call.class.valid()].Timeout; t > 0 {
		return t
	}
	return maxHint
}

// judge decides what a poll leads to: the end of the wait (with the error
// to return, nil for success), or another poll no sooner than hint.
func (run *waitRun) judge(res any, resp *http.Response, err error) (hint time.Duration, end bool, endErr error) {
	if err != nil {
		return run.judgeError(err)
	}
	run.last = res
	doc, derr := jsonValue(res)
	if derr != nil {
		return 0, true, derr
	}
	if v, ok := run.w.FailOn.match(doc); ok {
		return 0, true, &WaitError{Waiter: run.w.Name, Polls: run.polls, Last: res, Value: v, Err: ErrWaitFailed}
	}
	if _, ok := run.w.Until.match(doc); ok {
		return 0, true, nil
	}
	if resp != nil {
		hint, _ = parseRetryAfter(resp.Header, run.r.clock.Now())
	}
	return hint, false, nil
}

// judgeError lets a pending status, a 429 or a 503 poll again, for a retry
// token; any other error ends the wait as it is.
func (run *waitRun) judgeError(err error) (time.Duration, bool, error) {
	if !run.r.clock.Now().Before(run.deadline) {
		// The poll ran into the wait's own deadline (its WithTimeout).
		return 0, true, run.timedOut(err)
	}
	var se *StatusError
	if !errors.As(err, &se) || errors.Is(err, ErrBudgetExhausted) || !run.again(se.StatusCode) {
		return 0, true, err
	}
	if !run.r.buckets[run.call.class.valid()].take(false) {
		return 0, true, &WaitError{Waiter: run.w.Name, Polls: run.polls, Last: run.last, Err: ErrBudgetExhausted, Cause: err}
	}
	hint, _ := parseRetryAfter(se.Header, run.r.clock.Now())
	return max(hint, se.RetryAfter), false, nil
}

// again reports whether a poll that ended with status may be repeated.
func (run *waitRun) again(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable ||
		slices.Contains(run.w.PendingStatus, status)
}

// timedOut is the error of a wait whose next poll would start too late;
// cause is the last poll's error, if it failed.
func (run *waitRun) timedOut(cause error) error {
	if run.byCtx && cause == nil {
		cause = context.DeadlineExceeded
	}
	return &WaitError{Waiter: run.w.Name, Polls: run.polls, Last: run.last, Err: ErrWaitTimeout, Cause: cause}
}

// stopped is the error of a wait whose context ended: ErrWaitTimeout
// for its deadline, else its error.
func (run *waitRun) stopped(ctxErr error) error {
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		return &WaitError{Waiter: run.w.Name, Polls: run.polls, Last: run.last, Err: ErrWaitTimeout, Cause: ctxErr}
	}
	return &WaitError{Waiter: run.w.Name, Polls: run.polls, Last: run.last, Err: ctxErr}
}

// pollDelay is the pause after poll n (from 0): a random time in
// [d/2, d), d = min(maxDelay, base * 2^n). Half of it is jitter, so
// waiters started together drift apart; the other half keeps a poll from
// following the previous one at once.
func pollDelay(n int, base, maxDelay time.Duration, rnd func() float64) time.Duration {
	d := maxDelay
	if n < 62 && base <= maxDelay>>uint(n) {
		d = base << uint(n)
	}
	return d/2 + backoff(0, d/2, d/2, rnd)
}

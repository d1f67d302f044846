package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// engineKey marks a context inside which the engine is running attempts.
type engineKey struct{}

// call is the state of one Do. It is also the call's context: it embeds the
// caller's context (plus the policy deadline) and answers engineKey, so a
// call made under it (a nested client) makes one attempt only. Folding the
// marker into the state saves an allocation per call.
type call struct {
	context.Context

	r  *Runner
	op *Operation
	// req is a copy, so the caller's Request does not escape to the heap.
	req    Request
	cfg    callConfig
	pol    Policy
	bucket *bucket

	key    string
	header http.Header
	// outer is the engine call whose context this one runs under, if any.
	outer *call
	// active is set while the call runs attempts: only then does a call
	// under its context count as nested.
	active atomic.Bool
	single bool
	cancel context.CancelFunc
	// shared, when set, is the shared deadline context of a call whose own
	// context can never be cancelled: Done, Err and Deadline come from it.
	shared context.Context
	// deadline is in the Runner clock's time; zero when there is none.
	deadline time.Time

	// first is the first attempt's trace and tctx its context, built with
	// the call; current is the trace of the attempt in flight.
	first   attemptTrace
	tctx    context.Context
	current atomic.Pointer[attemptTrace]

	getBody func() (io.ReadCloser, error)
	// body holds the success body once read.
	body respBody

	sends   int
	retries int
	unknown bool
	// reached: some attempt was written or answered.
	reached bool
	recs    []Attempt
	// buf holds the first record: most calls make one attempt.
	buf [1]Attempt
}

// Value answers the engine marker and hides the enclosing call's trace, so a
// nested call's sends are not counted as the outer call's replays.
func (c *call) Value(key any) any {
	if _, ok := key.(engineKey); ok {
		return c
	}
	v := c.Context.Value(key)
	if v == nil && c.shared != nil {
		// The shared context holds no values of its own; what it answers is
		// its cancelCtx, so that contexts derived from this call (net/http
		// derives one per request) register with it instead of starting a
		// goroutine to watch Done.
		return c.shared.Value(key)
	}
	if c.outer != nil {
		if t, ok := v.(*httptrace.ClientTrace); ok && c.outer.ownsTrace(t) {
			return nil
		}
	}
	return v
}

// Deadline is the shared deadline's, or the call context's.
func (c *call) Deadline() (time.Time, bool) {
	if c.shared != nil {
		return c.shared.Deadline()
	}
	return c.Context.Deadline()
}

// Done is the shared deadline's, or the call context's.
func (c *call) Done() <-chan struct{} {
	if c.shared != nil {
		return c.shared.Done()
	}
	return c.Context.Done()
}

// Err is the shared deadline's, or the call context's.
func (c *call) Err() error {
	if c.shared != nil {
		return c.shared.Err()
	}
	return c.Context.Err()
}

// errBadRequest reports a Request the engine cannot send.
var errBadRequest = errors.New("runtime: nil operation, request or URL")

// init prepares the call: options, key, headers, deadline and trace.
func (c *call) init(ctx context.Context) error {
	if c.op == nil || c.req.URL == nil {
		ce := &CallError{Key: c.req.Key, Err: errBadRequest}
		if c.op != nil {
			ce.Operation = c.op.ID
		}
		if ce.Key == "" {
			ce.Key = NewKey()
		}
		return ce
	}
	class := c.cfg.class.valid()
	c.pol, c.bucket = c.r.policies[class], c.r.buckets[class]
	c.outer, _ = ctx.Value(engineKey{}).(*call)
	c.single = c.r.noRetry || c.cfg.noRetry || (c.outer != nil && c.outer.active.Load())
	c.active.Store(true)
	c.recs = c.buf[:0]
	c.key = c.req.Key
	if c.key == "" && (c.op.Safety == Keyed || len(c.r.observers) > 0 || c.cfg.log != nil) {
		// Records someone will see name the intent from the first attempt;
		// otherwise an unkeyed call makes its key only if it fails.
		c.key = NewKey()
	}
	c.initHeader()
	ctx = c.startObservers(ctx)
	c.initDeadline(ctx, class)
	c.first.bind(!c.r.traced)
	c.tctx = httptrace.WithClientTrace(c, &c.first.trace)
	if c.req.Body != nil {
		c.getBody = c.newBody
	}
	return nil
}

// startObservers lets every CallObserver open its view of the call; the
// context they return becomes the call's.
func (c *call) startObservers(ctx context.Context) context.Context {
	for _, o := range c.r.observers {
		if co, ok := o.(CallObserver); ok {
			ctx = co.StartCall(ctx, c.op, &c.req)
		}
	}
	return ctx
}

// initHeader adds the key header and the call headers to the caller's map.
func (c *call) initHeader() {
	c.header = c.req.Header
	if c.header == nil {
		c.header = make(http.Header, 2)
	}
	if c.op.Safety == Keyed && c.op.KeyHeader != "" {
		c.header.Set(c.op.KeyHeader, c.key)
	}
	for i := 0; i+1 < len(c.cfg.headers); i += 2 {
		c.header.Set(c.cfg.headers[i], c.cfg.headers[i+1])
	}
}

// initDeadline fixes the call's deadline: the context's, or now+Timeout when
// the context has none, then enforced by a shared deadline context (a
// context that cannot be cancelled) or a derived one.
func (c *call) initDeadline(ctx context.Context, class Class) {
	now := c.r.clock.Now()
	if d, ok := ctx.Deadline(); ok {
		// Expressed in the Runner clock's time, so a fake clock stays coherent.
		c.deadline = now.Add(time.Until(d))
	} else if c.pol.Timeout > 0 {
		c.deadline = now.Add(c.pol.Timeout)
		if ctx.Done() == nil {
			c.shared = c.r.deadlines[class].get(c.pol.Timeout)
		} else {
			ctx, c.cancel = context.WithTimeout(ctx, c.pol.Timeout)
		}
	}
	c.Context = ctx
}

// newBody returns a fresh reader over the call's body bytes; it is the
// requests' GetBody, so net/http can rewind for its own replays too.
func (c *call) newBody() (io.ReadCloser, error) {
	if len(c.req.Body) == 0 {
		return http.NoBody, nil
	}
	// A NopCloser over a *bytes.Reader is a body net/http knows to be in
	// memory: it writes headers and body in one packet.
	return io.NopCloser(bytes.NewReader(c.req.Body)), nil
}

// maxBody is the success body limit: WithMaxBody's, else the policy's.
func (c *call) maxBody() int64 {
	if c.r.maxBody > 0 {
		return c.r.maxBody
	}
	return c.pol.MaxBody
}

// timeLeft is the time to the deadline (0 when there is none).
func (c *call) timeLeft() time.Duration {
	if c.deadline.IsZero() {
		return 0
	}
	return max(c.deadline.Sub(c.r.clock.Now()), 0)
}

// release cancels the call's derived context, if any.
func (c *call) release() {
	if c.cancel != nil {
		c.cancel()
	}
}

// run makes attempts until the decision table or a limit ends the call.
func (c *call) run() (*http.Response, error) {
	why, wait, src := ReasonFirst, time.Duration(0), WaitNone
	for {
		s := c.send(why, wait, src)
		v := c.judge(&s)
		if v.act == actReturn && s.err == nil && s.resp.StatusCode < 400 {
			if lost := c.readSuccess(&s); lost != nil {
				v = *lost
			}
		}
		c.unknown = c.unknown || v.unknown
		c.reached = c.reached || s.written || s.err == nil
		if v.act != actRetry {
			return c.finish(&s, v, nil)
		}
		w, ws, limit := c.gate(&s)
		if limit != nil {
			return c.finish(&s, v, limit)
		}
		discard(s.resp, c.pol.ErrorBodyTimeout)
		s.releaseAttempt()
		// Observers hear of the attempt now, not after a wait that may last
		// minutes (a background Retry-After) or never end (a crash).
		c.emit(s.rec)
		s.emitted = true
		if err := c.r.clock.Sleep(c, w); err != nil {
			// The record goes out again as the final one; the call's error
			// is the context's.
			s.resp, s.err = nil, err
			return c.finish(&s, c.ctxVerdict(false), nil)
		}
		why, wait, src = v.why, w, ws
	}
}

// judge classifies one attempt with the decision table, or ends the call
// when its context is done.
func (c *call) judge(s *sent) verdict {
	if s.unsent {
		if c.Err() != nil {
			return c.ctxVerdict(false)
		}
		return verdict{act: actFail}
	}
	if s.err == nil {
		// A key the engine made has never been sent before this call's
		// first send (a transport replay makes that send the second).
		fresh := c.req.Key == "" && c.sends == 1
		return decideStatus(c.op, s.resp.StatusCode, s.resp.Header.Get(ReplayedHeader) == "true", fresh)
	}
	if c.Err() != nil {
		return c.ctxVerdict(s.written)
	}
	return decideError(c.op, s.written)
}

// ctxVerdict stops a call whose context ended: an unsafe request that may
// have been sent is an unknown outcome; otherwise the deadline, or no rule
// at all for a cancellation.
func (c *call) ctxVerdict(written bool) verdict {
	switch {
	case written && !c.op.safe():
		return verdict{act: actFail, rule: ErrOutcomeUnknown, unknown: true}
	case errors.Is(c.Err(), context.DeadlineExceeded):
		return verdict{act: actFail, rule: ErrDeadline, unknown: written}
	}
	return verdict{act: actFail, unknown: written}
}

// gate applies the limits before a retry: attempts, Retry-After ceiling,
// deadline, budget (last, so a call that stops anyway spends no token). It
// returns the wait and its source, or the limit that stops the call.
func (c *call) gate(s *sent) (time.Duration, WaitSource, error) {
	if c.single || c.sends >= c.pol.MaxAttempts {
		return 0, WaitNone, ErrAttemptsExhausted
	}
	wait, src := s.hint, WaitRetryAfter
	if !s.hasHint {
		wait, src = backoff(c.retries, c.pol.BaseDelay, c.pol.MaxDelay, c.r.rand), WaitBackoff
	} else if c.pol.MaxRetryAfter > 0 && wait > c.pol.MaxRetryAfter {
		return 0, WaitNone, ErrRetryAfterTooLong
	}
	if !c.deadline.IsZero() && wait+c.pol.MinAttempt > c.timeLeft() {
		if src == WaitRetryAfter {
			return 0, WaitNone, ErrRetryAfterTooLong
		}
		return 0, WaitNone, ErrDeadline
	}
	if !c.bucket.take(s.timedOut) {
		return 0, WaitNone, ErrBudgetExhausted
	}
	c.retries++
	return wait, src, nil
}

package runtime

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// liveCall is the part of a call opened with open: a call whose success
// body is handed over unread. Its deadline (and its attempts' timeout)
// cover the response headers only; they run on timers that are stopped
// when the headers are in, rather than on contexts that would cancel the
// request, and so the body, once the caller reads it.
type liveCall struct {
	// stopHeader and stopAttempt stop the call's deadline timer and the
	// running attempt's timeout timer (nil when there is none).
	stopHeader, stopAttempt func() bool
	// start describes the first send.
	start openStart
}

// openStart describes the first send of an opened call: a reconnection's
// reason and wait, and the headers it adds (Last-Event-ID, Range).
type openStart struct {
	why    Reason
	wait   time.Duration
	src    WaitSource
	header http.Header
}

// open runs a call like Do up to the response headers: same attempts,
// retries, keys, records, budget, redirects, credentials and deadline. A
// success comes back live: its body is a *liveBody not yet read, which the
// caller must close; from then on the deadline no longer applies, and
// each read of the body must make progress within the idle timeout. It
// also returns the call, whose policy, bucket and key a reconnection uses.
func (r *Runner) open(ctx context.Context, op *Operation, req *Request, opts []CallOption, start openStart) (*http.Response, *call, error) {
	c := r.newCall(op, req, opts)
	// A live call outlives open: it keeps a copy of the request, which the
	// caller may reuse.
	c.ownRequest()
	c.live = &liveCall{start: start}
	if len(start.header) > 0 {
		h := c.req.Header.Clone()
		if h == nil {
			h = make(http.Header, len(start.header))
		}
		for k, v := range start.header {
			h[k] = v
		}
		c.req.Header = h
	}
	if err := c.init(ctx); err != nil {
		return nil, c, err
	}
	resp, err := c.run()
	return resp, c, err
}

// headerCtx is a call context whose deadline is a timer that cancels it
// with context.DeadlineExceeded as the cause; Err reports that cause, so
// the engine reads the stop as a deadline and not as a cancellation.
type headerCtx struct{ context.Context }

// Err is the cause of a deadline, else the context's error.
func (h headerCtx) Err() error {
	err := h.Context.Err()
	if err != nil && context.Cause(h.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

// initHeaderDeadline is initDeadline for a live call: the deadline
// (WithTimeout, else Policy.Timeout, or the context's when earlier) is
// enforced by a timer on the Runner's clock that handOver stops. A deadline
// of the caller's own context keeps applying to the whole body: it is
// theirs.
func (c *call) initHeaderDeadline(ctx context.Context, now time.Time) {
	if d, ok := ctx.Deadline(); ok {
		c.deadline = now.Add(time.Until(d))
	}
	timeout := c.pol.Timeout
	if c.cfg.timeout > 0 {
		timeout = c.cfg.timeout
	}
	hctx, cancel := context.WithCancelCause(ctx)
	if timeout > 0 {
		if d := now.Add(timeout); c.deadline.IsZero() || d.Before(c.deadline) {
			c.deadline = d
		}
		c.live.stopHeader = afterFunc(c.r.clock, timeout, func() { cancel(context.DeadlineExceeded) })
	}
	c.cancel = func() {
		if c.live.stopHeader != nil {
			c.live.stopHeader()
		}
		cancel(context.Canceled)
	}
	c.ctx.Context = headerCtx{hctx}
}

// limitAttempt bounds one attempt by Policy.AttemptTimeout: a context
// timeout for an ordinary call, a timer stopped at the headers for a live
// one.
func (c *call) limitAttempt(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.live == nil {
		return context.WithTimeout(ctx, c.pol.AttemptTimeout)
	}
	actx, cancel := context.WithCancelCause(ctx)
	stop := afterFunc(c.r.clock, c.pol.AttemptTimeout, func() { cancel(context.DeadlineExceeded) })
	c.live.stopAttempt = stop
	return headerCtx{actx}, func() {
		stop()
		cancel(context.Canceled)
	}
}

// handOver stops the header timers and gives the success response a live
// body: read under the idle timeout, and releasing the call's contexts when
// closed. (A timer that fired just before it was stopped has cancelled the
// request: the body's reads then fail, which a stream or a download treats
// as a cut.)
func (l *liveCall) handOver(c *call, s *sent) *http.Response {
	if l.stopHeader != nil {
		l.stopHeader()
	}
	if l.stopAttempt != nil {
		l.stopAttempt()
	}
	cancelAttempt := s.cancel
	s.cancel = nil
	b := &liveBody{rc: s.resp.Body, release: func() {
		if cancelAttempt != nil {
			cancelAttempt()
		}
		c.release()
	}}
	if b.rc == nil {
		b.rc = http.NoBody
	}
	if d := c.idleTimeout(); d > 0 {
		b.idle = &idleWatch{clock: c.r.clock, d: d, onIdle: func() { _ = b.rc.Close() }}
	}
	s.resp.Body = b
	return s.resp
}

// idleTimeout is WithIdleTimeout's, else the policy's (0: none).
func (c *call) idleTimeout() time.Duration {
	if c.cfg.idle != 0 {
		return max(c.cfg.idle, 0)
	}
	return c.pol.IdleTimeout
}

// liveBody is the body of a live response: each Read must make progress
// within the idle timeout, and Close releases the call.
type liveBody struct {
	rc      io.ReadCloser
	idle    *idleWatch
	release func()
	once    sync.Once
}

// Read reads from the response under the idle watch; a read the watch cut
// fails with an *IdleTimeoutError.
func (b *liveBody) Read(p []byte) (int, error) {
	if b.idle == nil {
		return b.rc.Read(p)
	}
	if b.idle.begin() {
		return 0, &IdleTimeoutError{Idle: b.idle.d}
	}
	n, err := b.rc.Read(p)
	if b.idle.end() && err != nil {
		err = &IdleTimeoutError{Idle: b.idle.d}
	}
	return n, err
}

// Close closes the response body and releases the call's contexts.
func (b *liveBody) Close() error {
	var err error
	b.once.Do(func() {
		if b.idle != nil {
			b.idle.stop()
		}
		err = b.rc.Close()
		b.release()
	})
	return err
}

package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// call is the state of one Do. Its attempts run under ctx, which lives
// inside it (see callContext).
type call struct {
	ctx callContext

	r  *Runner
	op *Operation
	// req is the caller's Request, read in place (generated code builds it
	// on the heap already: a copy would be 104 bytes more per call). The
	// call never writes it: ownRequest copies it first.
	req *Request
	// cfg is the Runner's defaults, or the call's own copy when it has
	// options (withOptions); never written through.
	cfg *callConfig
	// pol is the Runner's policy of the call's class, or the call's own
	// copy when its options change it (ownPolicy); never written through.
	pol *Policy

	key    string
	header http.Header
	// outer is the engine call whose context this one runs under, if any.
	outer *call
	// active is set while the call runs attempts: only then does a call
	// under its context count as nested.
	active atomic.Bool
	single bool
	cancel context.CancelFunc
	// deadline is in the Runner clock's time; zero when there is none.
	// firstLeft is the time left when init ended (attemptLeft).
	deadline  time.Time
	firstLeft time.Duration

	// first is the first attempt's trace, built with the call; current is
	// the trace of the attempt in flight.
	first   attemptTrace
	current atomic.Pointer[attemptTrace]

	getBody func() (io.ReadCloser, error)
	// stream is a streamed body (Request.Stream) prepared for replay; nil
	// for other calls.
	stream *streamBody
	// body holds the unread rest of the success body once read (the
	// response's Body is the call itself, as a respBody).
	body []byte
	// live is set for a call opened with open: its success body is handed
	// over unread, and its deadline covers the headers only.
	live *liveCall

	sends, retries int32
	// refreshed: the call resent once after a 401 with fresh credentials;
	// refreshing: that resend is the attempt in flight.
	refreshed, refreshing bool
	unknown               bool
	// ownsReq: req is the call's own copy (ownRequest).
	ownsReq bool
	// reached: some attempt was written or answered.
	reached bool
	// endPending: the call returned a response whose body the caller has
	// yet to decode; the CallObservers hear of its end then (respBody.end).
	endPending bool
	recs       []Attempt
	// buf holds the first record: most calls make one attempt.
	buf [1]Attempt
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
	c.pol = &c.r.policies[class]
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
	if err := c.applyCallConfig(); err != nil {
		c.ensureKey()
		return &CallError{Operation: c.op.ID, Key: c.key, Err: err}
	}
	c.initHeader()
	ctx = c.startObservers(ctx)
	// One clock read serves the deadline and the first attempt's record.
	now := c.r.clock.Now()
	if c.live != nil {
		c.initHeaderDeadline(ctx, now)
	} else {
		c.initDeadline(ctx, class, now)
	}
	c.firstLeft = c.leftAt(now)
	c.first.bind(!c.r.traced)
	switch {
	case c.req.Stream != nil:
		c.getBody = c.newStream
	case c.req.Body != nil:
		c.getBody = c.newBody
	}
	return nil
}

// startObservers lets every CallObserver open its view of the call; the
// context they return becomes the call's.
func (c *call) startObservers(ctx context.Context) context.Context {
	for _, o := range c.r.observers {
		if co, ok := o.(CallObserver); ok {
			ctx = co.StartCall(ctx, c.op, c.ownRequest())
		}
	}
	return ctx
}

// noRequest is the request of a call given none: init refuses it (no URL).
var noRequest Request

// ownRequest makes the call's request its own copy, to change it (options,
// observers and live calls do) without touching the caller's.
func (c *call) ownRequest() *Request {
	if !c.ownsReq {
		r := *c.req
		c.req, c.ownsReq = &r, true
	}
	return c.req
}

// initHeader adds the key header and the call headers to the caller's map.
func (c *call) initHeader() {
	c.header = c.req.Header
	switch {
	case c.header == nil && c.r.userAgentValue != nil:
		c.header = http.Header{"User-Agent": c.r.userAgentValue}
	case c.header == nil:
		c.header = make(http.Header, 2)
	case c.r.userAgentValue != nil && c.header.Get("User-Agent") == "":
		c.header["User-Agent"] = c.r.userAgentValue
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
func (c *call) initDeadline(ctx context.Context, class Class, now time.Time) {
	if c.cfg.timeout > 0 {
		// A per-call timeout; the context's deadline still wins when earlier.
		ctx, c.cancel = context.WithTimeout(ctx, c.cfg.timeout)
	}
	if d, ok := ctx.Deadline(); ok {
		// Expressed in the Runner clock's time, so a fake clock stays coherent.
		c.deadline = now.Add(time.Until(d))
	} else if c.pol.Timeout > 0 {
		c.deadline = now.Add(c.pol.Timeout)
		if ctx.Done() == nil && c.cfg.timeout == 0 {
			c.ctx.shared = c.r.deadlines[class].get(c.pol.Timeout, c.r.realNow(now))
		} else {
			ctx, c.cancel = context.WithTimeout(ctx, c.pol.Timeout)
		}
	}
	c.ctx.Context = ctx
}

// realNow is now when the Runner's clock is the system clock (now is its
// reading), else time.Now: the real time that shared deadlines need.
func (r *Runner) realNow(now time.Time) time.Time {
	if _, ok := r.clock.(systemClock); ok {
		return now
	}
	return time.Now()
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

// budget is the retry budget of the call's class.
func (c *call) budget() *bucket { return c.r.buckets[c.cfg.class.valid()] }

// maxBody is the success body limit: WithMaxBody's, else the policy's.
func (c *call) maxBody() int64 {
	if c.r.maxBody > 0 {
		return c.r.maxBody
	}
	return c.pol.MaxBody
}

// timeLeft is the time to the deadline (0 when there is none).
func (c *call) timeLeft() time.Duration { return c.leftAt(c.r.clock.Now()) }

// leftAt is the time from now to the deadline (0 when there is none).
func (c *call) leftAt(now time.Time) time.Duration {
	if c.deadline.IsZero() {
		return 0
	}
	return max(c.deadline.Sub(now), 0)
}

// attemptLeft is the time left as an attempt starts. The first attempt
// starts as init ends, so init's clock read serves it (one time.Now less
// per call; callgrind put a read at about 170 instructions).
func (c *call) attemptLeft() time.Duration {
	if c.sends == 0 {
		return c.firstLeft
	}
	return c.timeLeft()
}

// release cancels the call's derived context, if any.
func (c *call) release() {
	if c.cancel != nil {
		c.cancel()
	}
}

package runtime

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// ErrTransportReplay is the Err of an attempt record for a send that net/http's
// Transport resent on its own: the connection died after the request was
// written, and the Transport replayed it on a new connection (it does so for
// idempotent methods and for requests carrying an Idempotency-Key header).
var ErrTransportReplay = errors.New("connection lost after the request was written; net/http resent it on a new connection")

// errNilResponse reports a Doer that returned neither a response nor an error.
var errNilResponse = errors.New("runtime: the Doer returned a nil response and a nil error")

// sent is the result of one engine attempt (which may hide transport
// replays, already recorded).
type sent struct {
	resp *http.Response
	err  error
	// written: the request may have reached the server.
	written bool
	// timedOut: the attempt failed by running out of time.
	timedOut bool
	// unsent: nothing was sent (an editor failed, or the context ended
	// before the send); no record is made.
	unsent bool
	// reached: the Doer was called (middleware may answer without it).
	reached bool
	// emitted: the attempt's record already went out, before the wait that
	// follows it; a call that ends during that wait re-sends it as final.
	emitted bool
	hint    time.Duration
	hasHint bool
	// adv is what a failure's headers say (the retry dialects); hint and
	// hasHint are its wait.
	adv advice
	// ctx is the attempt's context, cancel its own timeout's cancel.
	ctx    context.Context
	cancel context.CancelFunc
	rec    Attempt
}

// releaseAttempt cancels the attempt's own timeout context, if any.
func (s *sent) releaseAttempt() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

// send makes one attempt: builds the request, runs the editors, sends it and
// reads the trace. Sends the Transport replayed on its own are recorded
// (and charged to the budget) before it returns.
func (c *call) send(why Reason, wait time.Duration, src WaitSource) sent {
	s, hr, tr := c.prepare(why, wait, src, sendAlone)
	if s.unsent || c.throttledFirst(&s) {
		return s
	}
	s.resp, s.reached, s.err = c.do(hr)
	c.afterSend(&s, s.ctx, tr)
	return s
}

// throttledFirst reports a call's first send that the adaptive throttle
// rejects, and marks s so: nothing is sent, the call fails with its key
// unspent. (Retries and hedges consult the throttle in their gates.)
func (c *call) throttledFirst(s *sent) bool {
	if c.sends > 0 || c.throttleAllows() {
		return false
	}
	s.releaseAttempt()
	s.err, s.unsent = ErrThrottled, true
	return true
}

// sendKind says what else of the call is in flight as a send is prepared.
type sendKind uint8

const (
	// sendAlone: nothing else; the send is the call's only one.
	sendAlone sendKind = iota
	// sendRoundFirst: the first send of a hedged round, alone for now but
	// cancellable, should a hedge of its round win.
	sendRoundFirst
	// sendHedge: a hedge, prepared beside a send still in flight.
	sendHedge
)

// prepare builds one attempt's request and runs the editors on it, under
// the attempt's context (s.ctx). The sends of a hedged round (hedge.go) get
// a context the round can cancel (s.cancel); a hedge is prepared while
// another send is in flight, whose request the Transport may still be
// reading, so it also gets a trace, a header and a URL of its own.
func (c *call) prepare(why Reason, wait time.Duration, src WaitSource, kind sendKind) (sent, *http.Request, *attemptTrace) {
	s := sent{rec: Attempt{Operation: c.op.ID, Key: c.key, Reason: why, Wait: wait, WaitSource: src, TimeLeft: c.attemptLeft()}}
	hedge := kind == sendHedge
	tr, ctx := c.attemptContext(hedge)
	if c.pol.AttemptTimeout > 0 {
		ctx, s.cancel = c.limitAttempt(ctx)
	}
	if kind != sendAlone {
		ctx, s.cancel = cancelBoth(ctx, s.cancel)
	}
	s.ctx = ctx
	h := c.header
	if c.sends > 0 || hedge {
		// A previous attempt's request may still be read by the Transport.
		h = h.Clone()
	}
	hr, err := c.request(ctx, h)
	if err == nil && hedge {
		u := *hr.URL
		hr.URL = &u
	}
	if err == nil {
		err = c.edit(ctx, hr)
	}
	if err == nil {
		// Checked here because a Transport that gives up before GetConn
		// would look like a doer without trace support: "maybe sent".
		err = ctx.Err()
	}
	if err != nil {
		s.releaseAttempt()
		s.err, s.unsent = err, true
		return s, nil, nil
	}
	if !c.op.safe() && transportMayReplay(hr) {
		noReplay(hr)
	}
	return s, hr, tr
}

// request builds one attempt's *http.Request. A streamed body gets a
// GetBody (net/http's own rewind, for redirects and replays) only when
// every attempt of it can be rebuilt and the operation is safe.
func (c *call) request(ctx context.Context, h http.Header) (*http.Request, error) {
	hr := http.Request{
		Method: c.req.Method, URL: c.req.URL, Header: h,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}
	if c.getBody != nil {
		var err error
		hr.ContentLength = int64(len(c.req.Body))
		if hr.Body, err = c.getBody(); err != nil {
			return nil, err
		}
		hr.GetBody = c.getBody
		if c.req.Stream != nil {
			hr.ContentLength = c.stream.length
			if !c.rewindable() || !c.op.safe() {
				hr.GetBody = nil
			}
		}
	}
	return hr.WithContext(ctx), nil
}

// transportMayReplay reports whether net/http's Transport would resend req
// on its own after a dead reused connection (Request.isReplayable): an
// idempotent method, or an Idempotency-Key or X-Idempotency-Key header, with
// a body it can rewind.
func transportMayReplay(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, k := req.Header["Idempotency-Key"]
	_, x := req.Header["X-Idempotency-Key"]
	return k || x
}

// noReplay makes an unsafe operation's request one the Transport never
// resends: it only replays a request whose body is absent or can be rewound
// (GetBody), so the request gets a body (an empty one when it has none,
// which the Transport finds empty and does not send) and no GetBody. An
// unsafe request may have been executed by the lost send; resending it is
// the caller's decision, never the Transport's. The price: net/http no
// longer follows a 307/308 for such a request (it needs GetBody to resend
// it), and returns the redirect instead.
func noReplay(req *http.Request) {
	req.GetBody = nil
	if req.Body == nil || req.Body == http.NoBody {
		req.Body = emptyBody{}
	}
}

// emptyBody is an empty request body that is not http.NoBody, so that
// net/http does not consider the request replayable.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyBody) Close() error             { return nil }

// afterSend reads the trace counters: replays, whether the request was
// written, and whether the failure was a timeout.
func (c *call) afterSend(s *sent, ctx context.Context, tr *attemptTrace) {
	writes, gets := int(tr.writes.Load()), tr.gets.Load()
	replays, hops := 0, []hop(nil)
	if tr.more != nil {
		hops = tr.more.hops
	}
	for i, h := range hops {
		// Before hop i the attempt sent i+1 requests; more writes were
		// the Transport's replays.
		for range h.writes - (i + 1) - replays {
			c.recordReplay(s)
			replays++
		}
		c.recordHop(s, h.status)
	}
	for range writes - 1 - len(hops) - replays {
		c.recordReplay(s)
	}
	c.sends++
	s.rec.Number = int(c.sends)
	if s.err == nil && s.resp == nil {
		s.err = errNilResponse
	}
	if s.err != nil {
		s.resp = nil
		// No GetConn event: the doer gives no trace information (or a
		// middleware sent the request without the attempt's trace), so
		// the request may have been sent; the safe reading is "unknown".
		// A middleware that never called next sent nothing.
		s.written = s.reached && (writes > 0 || gets == 0 && (!c.r.traced || len(c.cfg.middleware) > 0))
		s.timedOut = isTimeout(s.err) || (ctx.Err() != nil && c.ctx.Err() == nil)
		s.rec.Err = s.err
		c.throttleRecord(s)
		return
	}
	s.rec.StatusCode = s.resp.StatusCode
	c.throttleRecord(s)
	if s.resp.StatusCode >= 400 {
		// Only a failure's hint is used; a success skips the parsing.
		s.adv = readAdvice(s.resp.StatusCode, s.resp.Header, c.r.clock.Now())
		s.hint, s.hasHint = s.adv.wait, s.adv.hasWait
	}
}

// recordReplay records a send the Transport made and then replayed, and
// charges it to the budget: no send goes uncounted.
func (c *call) recordReplay(s *sent) {
	c.sends++
	c.budget().charge()
	// The first send died: the host accepted nothing.
	c.throttleCount(false)
	c.unknown = true
	rec := s.rec
	rec.Number, rec.Err = int(c.sends), ErrTransportReplay
	c.emit(rec)
	s.rec.Reason, s.rec.Wait, s.rec.WaitSource = ReasonTransportReplay, 0, WaitNone
}

// recordHop records a redirect the client followed within the attempt. It
// is no failed attempt: nothing is charged to the budget or counted
// against MaxAttempts. The hop's record shares the attempt's number; the
// send that follows it has Reason ReasonRedirect.
func (c *call) recordHop(s *sent, status int) {
	rec := s.rec
	rec.Number, rec.StatusCode, rec.Outcome = int(c.sends)+1, status, OutcomeRedirected
	c.emit(rec)
	s.rec.Reason, s.rec.Wait, s.rec.WaitSource = ReasonRedirect, 0, WaitNone
}

// isTimeout reports a network timeout, found with errors.As.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// emit records an attempt and hands it to the observers.
func (c *call) emit(a Attempt) {
	a.BudgetLeft = c.budget().left()
	c.recs = append(c.recs, a)
	c.notify(a)
	if !a.Final {
		c.journalAttempt(a)
	}
}

// reemit replaces the call's last record with a, its final form, and hands
// it to the observers again.
func (c *call) reemit(a Attempt) {
	a.BudgetLeft = c.budget().left()
	c.recs[len(c.recs)-1] = a
	c.notify(a)
}

func (c *call) notify(a Attempt) {
	for _, o := range c.r.observers {
		o.ObserveAttempt(&c.ctx, a)
	}
}

package runtime

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/idemgen/idemgen/runtime/problem"
)

// run makes attempts until the decision table or a limit ends the call. It
// is the attempt loop; this file holds it and the steps it takes, in order:
// judge (the decision table, decide.go), gate (the limits before a retry:
// attempts, Retry-After, deadline, budget) and finish (the record and error
// that end the call). One attempt's send is in attempt.go, reading a success
// body in body.go, the waits in backoff.go and retryafter.go, the budget in
// budget.go; the call's state and context in call.go and callctx.go.
func (c *call) run() (*http.Response, error) {
	why, wait, src := ReasonFirst, time.Duration(0), WaitNone
	if c.live != nil {
		// A reconnection's first send says so, with the wait before it.
		why, wait, src = c.live.start.why, c.live.start.wait, c.live.start.src
	}
	for {
		s := c.sendRound(why, wait, src)
		v := c.judge(&s)
		if v.act == actReturn && s.err == nil && s.resp.StatusCode < 400 && c.live == nil {
			if lost := c.readSuccess(&s); lost != nil {
				v = *lost
			}
		}
		c.unknown = c.unknown || v.unknown
		c.reached = c.reached || s.written || s.err == nil
		if c.refreshCredentials(&s, v) {
			// Not a retry: the request was not executed, and the resend is
			// made at once, charged nothing and counted against no limit.
			discard(s.resp, c.pol.ErrorBodyTimeout)
			s.releaseAttempt()
			c.emit(s.rec)
			why, wait, src = ReasonCredentialRefresh, 0, WaitNone
			continue
		}
		c.refreshing = false
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
		if err := c.r.clock.Sleep(&c.ctx, w); err != nil {
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
		if c.ctx.Err() != nil {
			return c.ctxVerdict(false)
		}
		return verdict{act: actFail}
	}
	if s.err == nil {
		v := decideStatus(c.op, s.resp.StatusCode, replayed(s.resp.Header), c.keyAnswer(s), &s.adv)
		if s.resp.StatusCode >= 500 && c.op.Safety != Idempotent &&
			problem.Is(problemType(s.resp, c.pol.ErrorBodyTimeout), problem.OutcomeUnknown) {
			// The server says it may have executed the attempt: a call
			// that stops here ends unknown, never as a refusal, and its
			// journal entry stays for the reconciler. (An idempotent
			// call is simply repeated; its answer is not read for it.)
			v.unknown = true
		}
		return v
	}
	if c.ctx.Err() != nil {
		return c.ctxVerdict(s.written)
	}
	return decideError(c.op, s.written)
}

// keyAnswer reads what a keyed operation's 409 or 422 says about its key;
// any other answer says nothing.
func (c *call) keyAnswer(s *sent) keyAnswer {
	if c.op.Safety != Keyed || !isKeyStatus(s.resp.StatusCode) || replayed(s.resp.Header) {
		return keyUnsaid
	}
	// A key the engine made has never been sent before this call's first
	// send (a transport replay makes that send the second).
	fresh := c.req.Key == "" && c.sends == 1
	return readKeyAnswer(s.resp, fresh, c.pol.ErrorBodyTimeout)
}

// replayed reports ReplayedHeader: true. The header is indexed directly,
// its name being canonical already, as the Transport stores names: Get
// would canonicalize it again on every response, which callgrind put at
// 780 instructions a call, a third of the GET benchmark's gap to ogen.
func replayed(h http.Header) bool {
	v := h[ReplayedHeader]
	return len(v) > 0 && v[0] == "true"
}

// ctxVerdict stops a call whose context ended: an unsafe request that may
// have been sent is an unknown outcome; otherwise the deadline, or no rule
// at all for a cancellation.
func (c *call) ctxVerdict(written bool) verdict {
	switch {
	case written && !c.op.safe():
		return verdict{act: actFail, rule: ErrOutcomeUnknown, unknown: true}
	case errors.Is(c.ctx.Err(), context.DeadlineExceeded):
		return verdict{act: actFail, rule: ErrDeadline, unknown: written}
	}
	return verdict{act: actFail, unknown: written}
}

// gate applies the limits before a retry: attempts, Retry-After ceiling,
// deadline, the adaptive throttle, budget (last, so a call that stops
// anyway spends no token). It
// returns the wait and its source, or the limit that stops the call.
func (c *call) gate(s *sent) (time.Duration, WaitSource, error) {
	if c.single || int(c.sends) >= c.pol.MaxAttempts {
		return 0, WaitNone, ErrAttemptsExhausted
	}
	if !c.replayable() {
		return 0, WaitNone, ErrBodyNotReplayable
	}
	wait, src, err := c.pol.nextWait(s.hint, s.hasHint, int(c.retries), c.r.rand)
	if err != nil {
		return 0, WaitNone, err
	}
	wait += s.adv.resetSpread(c.r.rand)
	if !c.deadline.IsZero() && wait+c.pol.MinAttempt > c.timeLeft() {
		if src == WaitRetryAfter {
			return 0, WaitNone, ErrRetryAfterTooLong
		}
		return 0, WaitNone, ErrDeadline
	}
	if !c.throttleAllows() {
		return 0, WaitNone, ErrThrottled
	}
	if !c.budget().take(s.timedOut) {
		return 0, WaitNone, ErrBudgetExhausted
	}
	c.retries++
	return wait, src, nil
}

// finish ends the call after attempt s with verdict v, or with limit when a
// limit stopped a retry the verdict wanted, and tells the CallObservers. A
// success body the engine read is decoded by the caller after Do returns,
// and a body that does not decode is an error the caller gets: the
// observers hear of such a call's end when the caller is done with the body
// (respBody.end), with that error if there is one.
func (c *call) finish(s *sent, v verdict, limit error) (*http.Response, error) {
	if limit != nil && v.limited {
		// The server's rate limit is why the call stops: say so, with when
		// it resets.
		limit = s.adv.limitError(limit)
	}
	outcome := c.outcome(s, v, limit)
	resp, err := c.settle(s, v, limit, outcome)
	if err == nil {
		if _, ok := resp.Body.(*respBody); ok {
			c.endPending = true
			return resp, nil
		}
	}
	c.endCall(outcome, err)
	return resp, err
}

// endCall tells the CallObservers that the call ended.
func (c *call) endCall(outcome Outcome, err error) {
	for _, o := range c.r.observers {
		if co, ok := o.(CallObserver); ok {
			co.EndCall(&c.ctx, outcome, c.recs, err)
		}
	}
}

// settle records the final attempt and builds the call's result.
func (c *call) settle(s *sent, v verdict, limit error, outcome Outcome) (*http.Response, error) {
	c.active.Store(false)
	rec := s.rec
	rec.Final, rec.Outcome = true, outcome
	if s.err == nil && limit == nil {
		// The server answered and no retry was wanted: it is healthy.
		c.budget().credit()
	}
	switch {
	case s.emitted:
		c.reemit(rec)
	case !s.unsent:
		c.emit(rec)
	}
	if c.cfg.log != nil {
		*c.cfg.log = append((*c.cfg.log)[:0], c.recs...)
	}
	c.journalEnd(rec, v.rule == ErrInProgress || (limit != nil && v.why == ReasonInProgress))
	c.storeResponse(s.resp)
	if s.err == nil && s.resp.StatusCode < 400 {
		return c.success(s), nil
	}
	defer c.release()
	defer s.releaseAttempt()
	c.ensureKey()
	reason := stopReason(v, limit, rec.Outcome)
	if s.err != nil {
		return nil, &CallError{Operation: c.op.ID, Key: c.key, Attempts: slices.Clone(c.recs), Reason: reason, Err: c.holdErr(s.err),
			keyUnsent: c.keyUnsent(), resend: resendClass(c.op)}
	}
	return nil, c.statusError(s, reason)
}

// outcome is the final record's outcome.
func (c *call) outcome(s *sent, v verdict, limit error) Outcome {
	switch {
	case s.err == nil && limit == nil && s.resp.StatusCode < 400:
		return OutcomeSuccess
	case limit == nil && !v.unknown && s.err == nil:
		// A definite answer from the server ends any doubt.
		return OutcomeRejected
	case c.unknown:
		return OutcomeUnknown
	case !c.reached:
		return OutcomeNotSent
	}
	return OutcomeRejected
}

// stopReason is the error's Reason: the verdict's rule, or the limit that
// stopped a wanted retry, joined by the rules that still hold: ErrInProgress
// when the server was still answering 409, and ErrOutcomeUnknown whenever
// the call ends with an unknown outcome, so a limit never hides it.
func stopReason(v verdict, limit error, out Outcome) error {
	stop := v.rule
	if limit != nil {
		stop = limit
	}
	var rules []error
	if limit != nil && v.why == ReasonInProgress {
		rules = append(rules, ErrInProgress)
	}
	if out == OutcomeUnknown && !errors.Is(stop, ErrOutcomeUnknown) {
		rules = append(rules, ErrOutcomeUnknown)
	}
	switch {
	case len(rules) == 0:
		return stop
	case stop == nil && len(rules) == 1:
		return rules[0]
	}
	return &limitError{rules: rules, limit: stop}
}

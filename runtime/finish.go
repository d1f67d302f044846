package runtime

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"time"
)

// drainLimit bounds how much of a discarded body the engine reads so that the
// connection can be reused; a longer body is closed (and its connection
// dropped) rather than read at length.
const drainLimit = 64 << 10

// discard drains (bounded in size and in time, d) and closes a response
// body the caller will not see.
func discard(resp *http.Response, d time.Duration) {
	if resp == nil || resp.Body == nil {
		return
	}
	if _, ok := resp.Body.(*respBody); !ok && resp.Body != http.NoBody {
		bounded(resp.Body, d, func() { _, _ = io.CopyN(io.Discard, resp.Body, drainLimit) })
	}
	_ = resp.Body.Close()
}

// finish ends the call after attempt s with verdict v, or with limit when a
// limit stopped a retry the verdict wanted, and tells the CallObservers.
func (c *call) finish(s *sent, v verdict, limit error) (*http.Response, error) {
	outcome := c.outcome(s, v, limit)
	resp, err := c.settle(s, v, limit, outcome)
	for _, o := range c.r.observers {
		if co, ok := o.(CallObserver); ok {
			co.EndCall(c, outcome, c.recs, err)
		}
	}
	return resp, err
}

// settle records the final attempt and builds the call's result.
func (c *call) settle(s *sent, v verdict, limit error, outcome Outcome) (*http.Response, error) {
	c.active.Store(false)
	rec := s.rec
	rec.Final, rec.Outcome = true, outcome
	if s.err == nil && limit == nil {
		// The server answered and no retry was wanted: it is healthy.
		c.bucket.credit()
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
	if s.err == nil && s.resp.StatusCode < 400 {
		return c.success(s), nil
	}
	defer c.release()
	defer s.releaseAttempt()
	c.ensureKey()
	reason := stopReason(v, limit, rec.Outcome)
	if s.err != nil {
		return nil, &CallError{Operation: c.op.ID, Key: c.key, Attempts: slices.Clone(c.recs), Reason: reason, Err: s.err}
	}
	return nil, c.statusError(s, reason)
}

// ensureKey gives a failed call its intent key: every error names one, so
// the caller can reconcile the intent, even for an operation that sends no
// key header (an unsafe POST whose outcome is unknown, say). A key made this
// late is written into the call's records too, so they all agree.
func (c *call) ensureKey() {
	if c.key != "" {
		return
	}
	c.key = NewKey()
	for i := range c.recs {
		c.recs[i].Key = c.key
	}
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

// success hands the response over. Its body was read within the attempt
// (readSuccess), so the call's and the attempt's contexts are released now.
func (c *call) success(s *sent) *http.Response {
	s.releaseAttempt()
	c.release()
	return s.resp
}

// statusError reads the bounded body of a final status (within
// Policy.ErrorBodyTimeout) and builds the error.
func (c *call) statusError(s *sent, reason error) *StatusError {
	var body []byte
	if s.resp.Body != nil {
		body = readBounded(s.resp.Body, MaxErrorBody, c.pol.ErrorBodyTimeout)
		discard(s.resp, c.pol.ErrorBodyTimeout)
	}
	return &StatusError{
		Operation: c.op.ID, StatusCode: s.resp.StatusCode, Header: s.resp.Header, Body: body,
		Key: c.key, Attempts: slices.Clone(c.recs), Reason: reason, RetryAfter: s.hint,
	}
}

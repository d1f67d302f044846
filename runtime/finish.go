package runtime

import (
	"context"
	"io"
	"net/http"
	"slices"
)

// drainLimit bounds how much of a discarded body the engine reads so that the
// connection can be reused; a longer body is closed (and its connection
// dropped) rather than read at length.
const drainLimit = 64 << 10

// discard drains (bounded) and closes a response body the caller will not
// see.
func discard(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
	_ = resp.Body.Close()
}

// finish ends the call after attempt s with verdict v, or with limit when a
// limit stopped a retry the verdict wanted.
func (c *call) finish(s *sent, v verdict, limit error) (*http.Response, error) {
	c.active.Store(false)
	rec := s.rec
	rec.Final, rec.Outcome = true, c.outcome(s, v, limit)
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
	reason := v.rule
	if limit != nil {
		reason = limit
		if v.why == ReasonInProgress {
			reason = &limitError{rule: ErrInProgress, limit: limit}
		}
	}
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
	}
	return OutcomeRejected
}

// success hands the response over. When the call owns a deadline context or
// the attempt a timeout context, they stay alive until the caller closes the
// body (the deadline covers reading it), then are released.
func (c *call) success(s *sent) *http.Response {
	if (c.cancel == nil && s.cancel == nil) || s.resp.Body == nil {
		return s.resp
	}
	s.resp.Body = &releaseBody{ReadCloser: s.resp.Body, call: c.cancel, attempt: s.cancel}
	return s.resp
}

// releaseBody cancels the call's contexts when the body is closed.
type releaseBody struct {
	io.ReadCloser
	call, attempt context.CancelFunc
}

// Close closes the body, then releases the contexts.
func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	if b.attempt != nil {
		b.attempt()
	}
	if b.call != nil {
		b.call()
	}
	return err
}

// statusError reads the bounded body of a final status and builds the error.
func (c *call) statusError(s *sent, reason error) *StatusError {
	var body []byte
	if s.resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(s.resp.Body, MaxErrorBody))
		discard(s.resp)
	}
	return &StatusError{
		Operation: c.op.ID, StatusCode: s.resp.StatusCode, Header: s.resp.Header, Body: body,
		Key: c.key, Attempts: slices.Clone(c.recs), Reason: reason, RetryAfter: s.hint,
	}
}

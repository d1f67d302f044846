package runtime

import (
	"net/http"
	"slices"
)

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

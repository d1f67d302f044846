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
	if c.live != nil {
		return c.live.handOver(c, s)
	}
	s.releaseAttempt()
	c.release()
	return s.resp
}

// statusError reads the bounded body of a final status (within
// Policy.ErrorBodyTimeout) and builds the error.
func (c *call) statusError(s *sent, reason error) *StatusError {
	var body []byte
	if s.resp.Body != nil {
		body = readErrorBody(s.resp, MaxErrorBody, c.pol.ErrorBodyTimeout)
	}
	return &StatusError{
		Operation: c.op.ID, StatusCode: s.resp.StatusCode, Header: s.resp.Header, Body: body,
		Key: c.key, Attempts: slices.Clone(c.recs), Reason: reason, RetryAfter: s.hint,
		RequestID: c.r.requestID(s.resp.Header), keyUnsent: c.keyUnsent(), resend: resendClass(c.op),
	}
}

// keyUnsent reports whether the call's key is the engine's own and its
// requests never carried it (an operation that is not keyed): errors then
// keep it for KeyOf but their messages do not mention it. A key the caller
// gave is their reconciliation handle and is always shown.
func (c *call) keyUnsent() bool {
	return c.req.Key == "" && (c.op.Safety != Keyed || c.op.KeyHeader == "")
}

// storeResponse hands the final response's status and headers to
// WithResponse, its body already consumed.
func (c *call) storeResponse(resp *http.Response) {
	if c.cfg.resp == nil {
		return
	}
	if resp == nil {
		*c.cfg.resp = nil
		return
	}
	r := *resp
	r.Body = http.NoBody
	*c.cfg.resp = &r
}

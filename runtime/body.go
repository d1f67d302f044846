package runtime

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// ErrResponseLost is matched by the error of a call whose server answered
// but whose response body did not arrive whole (the connection died or
// timed out mid-body). The server may have executed the request: a safe
// operation retries it like any lost response (same key), an unsafe one
// stops with ErrOutcomeUnknown as well.
var ErrResponseLost = errors.New("the server answered, but the response was lost before its body arrived whole")

// ErrBodyTooLarge is matched by the error of a call whose success body is
// larger than Policy.MaxBody (see BodyTooLargeError).
var ErrBodyTooLarge = errors.New("response body larger than the client's limit")

// ErrDecode is the Reason of a *CallError returned by the Decode functions:
// the server answered with a success the operation's declaration does not
// decode (malformed JSON, an undeclared Content-Type). The request was
// executed; the error carries the key and the attempts like any other.
var ErrDecode = errors.New("the success response does not decode as the operation declares")

// ResponseLostError is the cause of a call whose response body was cut.
type ResponseLostError struct {
	// StatusCode is the status the server answered.
	StatusCode int
	// Read is how many body bytes arrived.
	Read int64
	// Err is the read error (io.ErrUnexpectedEOF, a reset, a timeout).
	Err error
}

// Error names the status, the bytes read and the cause.
func (e *ResponseLostError) Error() string {
	return fmt.Sprintf("the server answered %d, then the response was lost after %d body bytes: %v", e.StatusCode, e.Read, e.Err)
}

// Unwrap exposes ErrResponseLost and the read error.
func (e *ResponseLostError) Unwrap() []error { return []error{ErrResponseLost, e.Err} }

// BodyTooLargeError is the cause of a call whose success body exceeds the
// limit. The server executed the request; a keyed call may be repeated with
// the same key and a larger limit (WithMaxBody) to fetch the stored answer.
type BodyTooLargeError struct {
	StatusCode int
	// Limit is the client's limit; ContentLength the declared length (-1
	// when the server did not declare one and the body ran past the limit).
	Limit, ContentLength int64
}

// Error names the status, the size and the limit.
func (e *BodyTooLargeError) Error() string {
	size := "more than the limit"
	if e.ContentLength >= 0 {
		size = fmt.Sprintf("%d bytes", e.ContentLength)
	}
	return fmt.Sprintf("the %d response body is %s; the client reads at most %d (WithMaxBody)", e.StatusCode, size, e.Limit)
}

// Is matches ErrBodyTooLarge.
func (e *BodyTooLargeError) Is(target error) bool { return target == ErrBodyTooLarge }

// respBody is a success body the engine read whole within its attempt: the
// call itself seen as the body (its unread bytes are call.body), so it costs
// no allocation and a decode error can carry the call's key and attempts.
type respBody call

// call is the call whose body b is.
func (b *respBody) call() *call { return (*call)(b) }

// Read reads the buffered body; its end ends the call.
func (b *respBody) Read(p []byte) (int, error) {
	if len(b.body) == 0 {
		b.end(nil)
		return 0, io.EOF
	}
	n := copy(p, b.body)
	b.body = b.body[n:]
	return n, nil
}

// WriteTo writes the rest of the body to w in one call.
func (b *respBody) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b.body)
	b.body = b.body[n:]
	return int64(n), err
}

// Close ends the call: the connection was released when the body was read.
func (b *respBody) Close() error {
	b.end(nil)
	return nil
}

// end tells the CallObservers, once, that the caller is done with the body:
// err is the decode error the caller gets (the call then ends rejected, a
// success it could not take), nil when it took the body.
func (b *respBody) end(err error) {
	c := b.call()
	if !c.endPending {
		return
	}
	c.endPending = false
	if err == nil {
		c.endCall(OutcomeSuccess, nil)
		return
	}
	c.endCall(OutcomeRejected, err)
}

// rest takes the unread bytes without copying them.
func (b *respBody) rest() []byte {
	d := b.body
	b.body = nil
	return d
}

// readSuccess reads a success body whole, within the attempt (its timeouts
// and the call's deadline apply), so that a body cut short is an attempt
// outcome the decision table handles and not a bare error after the call.
// It returns a non-nil verdict when the read ended the attempt otherwise
// than with the whole body.
func (c *call) readSuccess(s *sent) *verdict {
	resp := s.resp
	if resp.Body == nil || resp.Body == http.NoBody || c.req.Method == http.MethodHead {
		// (A HEAD response has no body, whatever its Content-Length says.)
		return nil
	}
	limit := c.maxBody()
	if resp.ContentLength > limit {
		discard(resp, c.pol.ErrorBodyTimeout)
		return c.bodyTooLarge(s, resp.ContentLength)
	}
	data, err := readAtMost(resp.Body, resp.ContentLength, limit)
	if int64(len(data)) > limit {
		discard(resp, c.pol.ErrorBodyTimeout)
		return c.bodyTooLarge(s, -1)
	}
	if err != nil {
		_ = resp.Body.Close()
		s.resp, s.written = nil, true
		s.err = &ResponseLostError{StatusCode: resp.StatusCode, Read: int64(len(data)), Err: err}
		s.timedOut = isTimeout(err) || (s.ctx.Err() != nil && c.ctx.Err() == nil)
		s.rec.Err = s.err
		v := c.judge(s)
		return &v
	}
	_ = resp.Body.Close()
	c.body = data
	resp.Body = (*respBody)(c)
	return nil
}

// bodyTooLarge ends the call: the body is over the limit.
func (c *call) bodyTooLarge(s *sent, length int64) *verdict {
	s.err = &BodyTooLargeError{StatusCode: s.resp.StatusCode, Limit: c.maxBody(), ContentLength: length}
	s.resp, s.rec.Err = nil, s.err
	// The server answered: no earlier doubt about the call remains.
	c.unknown, s.written = false, true
	return &verdict{act: actFail, rule: ErrBodyTooLarge}
}

// readAtMost reads r to its end, or to limit+1 bytes; length, the declared
// length, is at most limit. A declared length sizes the buffer once, so a
// large body costs its size and not the doublings of a growing slice (a
// 256 MB body took 829 MB that way).
func readAtMost(r io.Reader, length, limit int64) ([]byte, error) {
	if length > 0 {
		// (A length of 0 with a body is a doer that did not set it:
		// net/http gives such responses http.NoBody.)
		buf := make([]byte, length)
		n, err := io.ReadFull(r, buf)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return buf[:n], err
	}
	// io.ReadAll over an io.LimitReader, without the LimitReader's
	// allocation: the read stops once past the limit.
	b := make([]byte, 0, min(512, limit+1))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return b, nil
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// decodeError gives an error of a Decode function the call's key and
// attempts, when resp came from the engine.
func decodeError(resp *http.Response, err error) error {
	b, ok := resp.Body.(*respBody)
	if !ok {
		return err
	}
	c := b.call()
	c.ensureKey()
	if n := len(c.recs); n > 0 && c.endPending {
		// The call ends here, rejected: a success it could not take.
		c.recs[n-1].Outcome = OutcomeRejected
	}
	if c.cfg.log != nil {
		*c.cfg.log = append((*c.cfg.log)[:0], c.recs...)
	}
	// The key is the records' (KeyOf); the message names it only when the
	// call sent it, as every other error of the call.
	ce := &CallError{Operation: c.op.ID, Key: c.key, Attempts: slices.Clone(c.recs), Reason: ErrDecode, Err: err,
		keyUnsent: c.keyUnsent()}
	b.end(ce)
	return ce
}

// readErrorBody reads at most n bytes of the body of a call's final
// failure, drains the rest (up to drainLimit) so the connection can be
// reused, and closes it, all within d. A refusal is the commonest answer
// an overloaded server gives, so it takes one timer, not one for the read
// and one for the drain, and drains nothing once the body has ended.
func readErrorBody(resp *http.Response, n int64, d time.Duration) []byte {
	var b []byte
	bounded(resp.Body, d, func() {
		var ended bool
		if b, ended = readAtMostN(resp.Body, int(n), resp.ContentLength); !ended {
			_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
		}
	})
	_ = resp.Body.Close()
	return b
}

// readAtMostN reads r until it ends or n bytes have arrived, and reports
// whether it ended. hint (a Content-Length, -1 when unknown) sizes the
// buffer, one byte over so that reading the end needs no growth; it is
// only a hint: a body longer or shorter than it is read as it is.
func readAtMostN(r io.Reader, n int, hint int64) ([]byte, bool) {
	size := 512
	if hint >= 0 && hint < int64(n) {
		size = int(hint) + 1
	}
	b := make([]byte, 0, min(size, n))
	for len(b) < n {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		k, err := r.Read(b[len(b):min(cap(b), n)])
		b = b[:len(b)+k]
		if err != nil {
			return b, true
		}
	}
	return b, false
}

// bounded runs read, closing body if it has not returned within d: on a
// net/http connection that aborts the read, so a body that never finishes
// cannot hold the call.
func bounded(body io.Closer, d time.Duration, read func()) {
	if d > 0 {
		t := time.AfterFunc(d, func() { _ = body.Close() })
		defer t.Stop()
	}
	read()
}

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

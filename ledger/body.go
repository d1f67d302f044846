package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/idemgen/idemgen/runtime/problem"
)

// readBody reads a keyed request's body for its fingerprint, bounded by
// Config.MaxBody; ok is false once it has answered. The time bound is the
// connection's read deadline: the ledger sets none, so that a slow sender
// is cut by the server's deadline and told so, not held to this read.
func (l *Ledger) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := readAtMost(w, r, l.cfg.MaxBody)
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return body, true
	case errors.As(err, &tooBig):
		problem.Write(w, http.StatusRequestEntityTooLarge, problem.BodyTooLarge,
			fmt.Sprintf("the body is larger than %d bytes", l.cfg.MaxBody))
	case IsTimeout(err):
		problem.Write(w, http.StatusRequestTimeout, problem.BodyTimeout,
			"the request body did not arrive in time; nothing was executed")
	default:
		problem.Write(w, http.StatusBadRequest, problem.BodyUnreadable,
			"the request body broke off; nothing was executed")
	}
	return nil, false
}

// readAtMost reads r's body, at most max bytes (then an
// *http.MaxBytesError). A declared length within max sizes the buffer once,
// plus one byte to see the end, and needs no http.MaxBytesReader: net/http
// delivers no more than it (the bound still holds for a Request built by
// hand, whose length may lie).
func readAtMost(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	if r.ContentLength < 0 || r.ContentLength >= max {
		return io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	}
	buf := make([]byte, 0, r.ContentLength+1)
	for {
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > max:
			return buf, &http.MaxBytesError{Limit: max}
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case len(buf) == cap(buf):
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// replayBody is a body read once and given to the handler again: one
// allocation where io.NopCloser over a bytes.Reader is two.
type replayBody struct{ bytes.Reader }

func (*replayBody) Close() error { return nil }

func newReplayBody(b []byte) io.ReadCloser {
	rb := &replayBody{}
	rb.Reset(b)
	return rb
}

// IsTimeout reports whether err, from reading a request body, is the
// connection's read deadline passing.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

package ledger

import (
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, l.cfg.MaxBody))
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

// IsTimeout reports whether err, from reading a request body, is the
// connection's read deadline passing.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

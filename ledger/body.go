package ledger

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
)

// ProblemBodyTimeout is the problem type of a keyed request whose body did
// not arrive within the server's read deadline (http.Server.ReadTimeout, or
// the deadline a generated server sets): 408, with nothing reserved and
// nothing executed, so a retry with the same key executes afresh.
const ProblemBodyTimeout = "https://idemgen.dev/problems/body-timeout"

// ProblemBodyUnreadable is the problem type of a keyed request whose body
// broke off for another reason (the client closed the connection, or sent
// less than its Content-Length): 400, with nothing reserved.
const ProblemBodyUnreadable = "https://idemgen.dev/problems/body-unreadable"

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
		writeProblem(w, http.StatusRequestEntityTooLarge, ProblemBodyTooBig,
			fmt.Sprintf("the body is larger than %d bytes", l.cfg.MaxBody))
	case IsTimeout(err):
		writeProblem(w, http.StatusRequestTimeout, ProblemBodyTimeout,
			"the request body did not arrive in time; nothing was executed")
	default:
		writeProblem(w, http.StatusBadRequest, ProblemBodyUnreadable,
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

package idemsrv

import (
	"net/http"
	"time"
)

// bodyDeadline puts the reading of a request's body under the body
// timeout before anything reads it: the ledger reads a keyed operation's
// body for its fingerprint before the handler's decoder runs, and without
// a deadline a client that trickles its body held a WithMaxInFlight slot
// for as long as it liked. A request without a body gets no deadline (it
// has nothing to wait for). Once the body has been read to its end,
// net/http clears the deadline for its own read of the idle connection,
// so a handler may work longer than the timeout; a writer that cannot
// take a deadline (a test's recorder) leaves the body unbounded in time.
func (e *Engine) bodyDeadline(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(e.cfg.bodyTimeout))
		}
		h.ServeHTTP(w, r)
	})
}

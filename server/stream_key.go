package idemsrv

import (
	"fmt"
	"net/http"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/runtime/problem"
)

// requireKey answers a request without one well-formed key in header with
// the ledger's 400s, so that a keyed operation served outside the ledger
// (a stream) still hands its handler a key it can deduplicate on; the
// answer names the key, as the ledger's do.
func requireKey(header string, h http.Handler) http.Handler {
	if header == "" {
		header = "Idempotency-Key"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header.Values(header)
		if len(vals) == 0 {
			problem.Write(w, http.StatusBadRequest, problem.KeyMissing, fmt.Sprintf("this operation requires an %s header", header))
			return
		}
		key, ok := ledger.ParseKey(vals)
		if !ok {
			problem.Write(w, http.StatusBadRequest, problem.KeyInvalid,
				fmt.Sprintf("%s must be one non-empty string of at most %d printable characters", header, ledger.MaxKeyLen))
			return
		}
		w.Header().Set(header, key)
		h.ServeHTTP(w, r)
	})
}

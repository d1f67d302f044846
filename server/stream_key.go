package idemsrv

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/ledger"
)

// maxKeyLen is the ledger's bound on a key.
const maxKeyLen = 255

// requireKey answers a request without one well-formed key in header with
// the ledger's 400s, so that a keyed operation served outside the ledger
// (a stream) still hands its handler a key it can deduplicate on.
func requireKey(header string, h http.Handler) http.Handler {
	if header == "" {
		header = "Idempotency-Key"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header.Values(header)
		if len(vals) == 0 {
			WriteProblem(w, http.StatusBadRequest, ledger.ProblemMissingKey, fmt.Sprintf("this operation requires an %s header", header))
			return
		}
		if len(vals) > 1 || !validKey(vals[0]) {
			WriteProblem(w, http.StatusBadRequest, ledger.ProblemBadKey,
				fmt.Sprintf("%s must be one non-empty string of at most %d printable characters", header, maxKeyLen))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// validKey applies the ledger's rules: bare or a structured-field string,
// 1 to 255 printable ASCII characters without '"' or '\'.
func validKey(v string) bool {
	k := strings.TrimSpace(v)
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	if k == "" || len(k) > maxKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e || k[i] == '"' || k[i] == '\\' {
			return false
		}
	}
	return true
}

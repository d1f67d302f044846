package idemsrv

import (
	"fmt"
	"net/http"
	"strings"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
)

// requirePreconditions answers 428 Precondition Required (RFC 6585) when
// none of the headers is present, before the ledger or the handler runs.
func requirePreconditions(headers []string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, name := range headers {
			if strings.TrimSpace(r.Header.Get(name)) != "" {
				h.ServeHTTP(w, r)
				return
			}
		}
		problem.Write(w, http.StatusPreconditionRequired, problem.PreconditionNeeded,
			fmt.Sprintf("this operation changes a resource only when the request states its version: send %s",
				strings.Join(headers, " or ")))
	})
}

// PreconditionFailed is the error a handler returns when the request's
// precondition (If-Match) no longer holds: the server answers 412 with
// model, the operation's declared 412 body (nil for none), as the body. A
// client's call then fails with idemrt.ErrPreconditionFailed.
//
//	if order.ETag != params.IfMatch {
//		return nil, idemsrv.PreconditionFailed(&Error{Code: "stale", Message: "read the order again"})
//	}
func PreconditionFailed(model any) error {
	return &idemrt.StatusError{StatusCode: http.StatusPreconditionFailed, Model: model}
}

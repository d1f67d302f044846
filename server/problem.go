package idemsrv

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Problem types of the refusals idemsrv answers itself; the ledger's own
// (key reused, in progress...) are the ledger.Problem* constants.
const (
	ProblemBadRequest         = "https://idemgen.dev/problems/bad-request"
	ProblemBodyTooBig         = "https://idemgen.dev/problems/body-too-large"
	ProblemUnsupportedMedia   = "https://idemgen.dev/problems/unsupported-media-type"
	ProblemPreconditionNeeded = "https://idemgen.dev/problems/precondition-required"
	ProblemUnauthorized       = "https://idemgen.dev/problems/credentials-missing"
	ProblemCredentialsRefused = "https://idemgen.dev/problems/credentials-refused"
	ProblemForbidden          = "https://idemgen.dev/problems/forbidden"
	ProblemOverloaded         = "https://idemgen.dev/problems/overloaded"
	ProblemAuthTimeout        = "https://idemgen.dev/problems/authentication-timeout"
	ProblemInternal           = "https://idemgen.dev/problems/internal"
	ProblemNotImplemented     = "https://idemgen.dev/problems/not-implemented"
)

// problem is an RFC 9457 problem details object.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// WriteProblem answers status with an application/problem+json body. detail
// must be text written for the client (what was wrong with its request),
// never an internal error's message: the one place handler errors reach is
// WriteError, which answers them without their text.
func WriteProblem(w http.ResponseWriter, status int, typ, detail string) {
	b, _ := json.Marshal(problem{Type: typ, Title: http.StatusText(status), Status: status, Detail: detail})
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(b)
}

package idemsrv

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Problem types of the webhook receiver's refusals, answered as
// application/problem+json (RFC 9457).
const (
	ProblemWebhookUnsigned  = "https://idemgen.dev/problems/webhook-unsigned"
	ProblemWebhookHeaders   = "https://idemgen.dev/problems/webhook-headers-invalid"
	ProblemWebhookSignature = "https://idemgen.dev/problems/webhook-signature-invalid"
	ProblemWebhookStale     = "https://idemgen.dev/problems/webhook-timestamp-stale"
	ProblemWebhookUnknown   = "https://idemgen.dev/problems/webhook-unknown"
	ProblemWebhookPayload   = "https://idemgen.dev/problems/webhook-payload-invalid"
	ProblemWebhookTooBig    = "https://idemgen.dev/problems/body-too-large"
	ProblemWebhookMedia     = "https://idemgen.dev/problems/unsupported-media-type"
	ProblemWebhookMethod    = "https://idemgen.dev/problems/method-not-allowed"
	ProblemWebhookInFlight  = "https://idemgen.dev/problems/request-in-progress"
	ProblemWebhookFailed    = "https://idemgen.dev/problems/internal"
	ProblemWebhookStore     = "https://idemgen.dev/problems/store-unavailable"
)

// webhookProblem is an RFC 9457 problem details object.
type webhookProblem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// writeWebhookProblem answers status with a problem+json body. detail is
// text written for the sender, never an internal error's message.
func writeWebhookProblem(w http.ResponseWriter, status int, typ, detail string) {
	b, _ := json.Marshal(webhookProblem{Type: typ, Title: http.StatusText(status), Status: status, Detail: detail})
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(b)
}

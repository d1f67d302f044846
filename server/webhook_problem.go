package idemsrv

// Problem types of the webhook receiver's refusals, answered as
// application/problem+json (RFC 9457).
const (
	ProblemWebhookUnsigned  = "https://idemgen.dev/problems/webhook-unsigned"
	ProblemWebhookHeaders   = "https://idemgen.dev/problems/webhook-headers-invalid"
	ProblemWebhookSignature = "https://idemgen.dev/problems/webhook-signature-invalid"
	ProblemWebhookStale     = "https://idemgen.dev/problems/webhook-timestamp-stale"
	ProblemWebhookUnknown   = "https://idemgen.dev/problems/webhook-unknown"
	ProblemWebhookPayload   = "https://idemgen.dev/problems/webhook-payload-invalid"
	ProblemWebhookMismatch  = "https://idemgen.dev/problems/webhook-route-mismatch"
	ProblemWebhookTooBig    = "https://idemgen.dev/problems/body-too-large"
	ProblemWebhookMedia     = "https://idemgen.dev/problems/unsupported-media-type"
	ProblemWebhookMethod    = "https://idemgen.dev/problems/method-not-allowed"
	ProblemWebhookInFlight  = "https://idemgen.dev/problems/request-in-progress"
	ProblemWebhookFailed    = "https://idemgen.dev/problems/internal"
	ProblemWebhookStore     = "https://idemgen.dev/problems/store-unavailable"
)

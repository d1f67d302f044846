package problem

// Base prefixes every problem type URI below; the rest of a URI is the
// type's name (Named), which a client reads (Is).
const Base = "https://idemgen.dev/problems/"

// Refusals of the request itself, answered by the server before the
// handler runs.
const (
	BadRequest         = Base + "bad-request"
	BodyTooLarge       = Base + "body-too-large"
	BodyTimeout        = Base + "body-timeout"
	BodyUnreadable     = Base + "body-unreadable"
	UnsupportedMedia   = Base + "unsupported-media-type"
	NotAcceptable      = Base + "not-acceptable"
	NotFound           = Base + "not-found"
	MethodNotAllowed   = Base + "method-not-allowed"
	PreconditionNeeded = Base + "precondition-required"
	// AmbiguousBody: a JSON body with invalid UTF-8, a lone surrogate
	// escape, or member names equal up to case (ledger.CheckJSON).
	AmbiguousBody = Base + "request-body-ambiguous"
)

// Refusals of the caller's credentials.
const (
	Unauthorized       = Base + "credentials-missing"
	CredentialsRefused = Base + "credentials-refused"
	Forbidden          = Base + "forbidden"
	AuthTimeout        = Base + "authentication-timeout"
	CallerUnknown      = Base + "caller-unknown"
)

// The idempotency layer's answers about a key (the ledger's).
const (
	KeyMissing = Base + "idempotency-key-missing"
	KeyInvalid = Base + "idempotency-key-invalid"
	KeyReused  = Base + "idempotency-key-reused"
	InProgress = Base + "request-in-progress"
	// OutcomeUnknown: the commit failed in a way that does not say whether
	// it happened; a retry with the same key replays if it did.
	OutcomeUnknown = Base + "outcome-unknown"
	// ResponseNotStored: the key executed, but its response was above the
	// ledger's Config.MaxStoredResponse; repeats get this instead of it.
	ResponseNotStored = Base + "response-not-stored"
)

// The server's own state.
const (
	Overloaded       = Base + "overloaded"
	Draining         = Base + "draining"
	Internal         = Base + "internal"
	NotImplemented   = Base + "not-implemented"
	StoreUnavailable = Base + "store-unavailable"
)

// Refusals of the webhook receiver (package server/webhook); it also sends
// BodyTooLarge, UnsupportedMedia, MethodNotAllowed, InProgress, Internal
// and StoreUnavailable.
const (
	WebhookUnsigned  = Base + "webhook-unsigned"
	WebhookHeaders   = Base + "webhook-headers-invalid"
	WebhookSignature = Base + "webhook-signature-invalid"
	WebhookStale     = Base + "webhook-timestamp-stale"
	WebhookUnknown   = Base + "webhook-unknown"
	WebhookPayload   = Base + "webhook-payload-invalid"
	WebhookMismatch  = Base + "webhook-route-mismatch"
)

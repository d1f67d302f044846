package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Sentinel errors, matched with errors.Is. Each names the rule or limit that
// ended a call; the error returned by a call wraps exactly one of them when
// one applies.
var (
	// ErrOutcomeUnknown: the request may have reached the server and been
	// executed, and no answer settled it. The message of the call's error
	// says what the operation's safety allows: a keyed operation is resent
	// with the same key (KeyOf) to learn the outcome, an idempotent one may
	// be resent, an unsafe one is reconciled first.
	ErrOutcomeUnknown = errors.New("outcome unknown: the request may have been executed")
	// ErrBudgetExhausted: the client's retry budget for the call class is empty.
	ErrBudgetExhausted = errors.New("retry budget exhausted")
	// ErrAttemptsExhausted: the policy's maximum number of attempts was made.
	ErrAttemptsExhausted = errors.New("maximum attempts reached")
	// ErrDeadline: the total deadline passed, or the next wait plus a minimal
	// attempt would not fit before it.
	ErrDeadline = errors.New("deadline cannot fit another attempt")
	// ErrPreconditionFailed: the server answered 412; re-read and merge.
	ErrPreconditionFailed = errors.New("precondition failed (412): the resource changed; re-read it and merge")
	// ErrKeyReuse: the server answered 422 to a keyed operation: the key was
	// already used with another payload.
	ErrKeyReuse = errors.New("idempotency key reused with a different payload (422)")
	// ErrUnauthorized: 401, 407, or 403 without a rate-limit signal; never
	// retried with the same credentials.
	ErrUnauthorized = errors.New("not authorized (401/403/407): not retried with the same credentials")
	// ErrInProgress: a keyed operation's server kept answering 409 "in
	// progress" until the call ran out of attempts, budget or time.
	ErrInProgress = errors.New("request with this idempotency key still in progress (409)")
	// ErrRetryAfterTooLong: the server asked for a wait above MaxRetryAfter or
	// beyond the time left before the deadline.
	ErrRetryAfterTooLong = errors.New("server asked to retry later than the call can wait")
)

// MaxErrorBody bounds how much of a non-success response body a StatusError
// keeps.
const MaxErrorBody = 64 << 10

// StatusError is a call that ended with a non-success HTTP status.
type StatusError struct {
	// Operation is the operation ID.
	Operation  string
	StatusCode int
	Header     http.Header
	// Body holds at most MaxErrorBody bytes of the response body.
	Body []byte
	// Model is the decoded error body when the spec declares one for this
	// status; generated code fills it in.
	Model any
	// Key is the idempotency key the call used ("" for operations without one).
	Key string
	// Attempts lists every attempt of the call.
	Attempts []Attempt
	// RetryAfter is the server's wait hint on the final response (0 when it
	// gave none): with ErrRetryAfterTooLong, when the server said to come back.
	RetryAfter time.Duration
	// Reason is the sentinel that explains why the call stopped here, if any
	// (ErrUnauthorized, ErrPreconditionFailed, ErrKeyReuse, ErrInProgress,
	// ErrAttemptsExhausted, ErrBudgetExhausted, ErrDeadline,
	// ErrRetryAfterTooLong, ErrBodyNotReplayable, a *RateLimitError); nil
	// for a plain final status.
	Reason error
	// RequestID is the server's id of the final response, from its
	// Request-Id, X-Request-Id or X-GitHub-Request-Id header, or one that
	// WithRequestIDHeaders names ("" when it sent none): quote it to the
	// API's support.
	RequestID string
	// keyUnsent: the call sent no key (an operation that is not keyed); Key
	// is then only the engine's reconciliation key, which the message
	// leaves out.
	keyUnsent bool
	// resend is what the operation allows after an unknown outcome
	// (resendClass).
	resend Safety
}

// Error reports the operation, the status, the reason, what the caller can
// do after an unknown outcome, the request id and the idempotency key the
// call sent.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %d %s", e.Operation, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Reason != nil {
		msg += ": " + e.Reason.Error()
	}
	return msg + unknownAdvice(e.Reason, e.resend) + suffix(e.RequestID, e.Key, e.keyUnsent)
}

// resendClass is the safety that decides what the caller of op can do after
// an unknown outcome: a keyed operation without a key header sends no key,
// so it is reconciled like an unsafe one.
func resendClass(op *Operation) Safety {
	if op.Safety == Keyed && op.KeyHeader == "" {
		return Unsafe
	}
	return op.Safety
}

// unknownAdvice is the closing words of the message of an error whose
// reason matches ErrOutcomeUnknown: what an operation of safety s allows
// ("" for other reasons). The zero Safety, Unsafe, gives the cautious one.
func unknownAdvice(reason error, s Safety) string {
	if !errors.Is(reason, ErrOutcomeUnknown) {
		return ""
	}
	switch s {
	case Keyed:
		return "; resend it with the same idempotency key (KeyOf) to learn the outcome, never with a new key"
	case Idempotent:
		return "; the operation is idempotent: it is safe to resend"
	}
	return "; the operation is not safe to resend: reconcile first, finding out from the server whether it took effect"
}

// suffix is the parenthesis closing an error message: the request id and
// the key the call sent.
func suffix(requestID, key string, keyUnsent bool) string {
	var parts []string
	if requestID != "" {
		parts = append(parts, "request id "+requestID)
	}
	if key != "" && !keyUnsent {
		parts = append(parts, "idempotency key "+key)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// Unwrap exposes the reason to errors.Is.
func (e *StatusError) Unwrap() error { return e.Reason }

// CallError is a call that ended without a usable response: a transport
// failure, an unknown outcome, or a limit reached after transport failures.
type CallError struct {
	Operation string
	// Key is the idempotency key the call used ("" for operations without one).
	Key      string
	Attempts []Attempt
	// Reason is the sentinel naming the rule or limit that stopped the call
	// (nil when the context was cancelled or the request could not be built).
	Reason error
	// Err is the last underlying error (a *net.OpError, context.Canceled...).
	Err error
	// keyUnsent and resend: as StatusError's.
	keyUnsent bool
	resend    Safety
}

// Error reports the operation, the reason, the cause, what the caller can
// do after an unknown outcome, and the key.
func (e *CallError) Error() string {
	msg := e.Operation + ": "
	switch {
	case e.Reason != nil && e.Err != nil:
		msg += e.Reason.Error() + ": " + e.Err.Error()
	case e.Reason != nil:
		msg += e.Reason.Error()
	case e.Err != nil:
		msg += e.Err.Error()
	}
	return msg + unknownAdvice(e.Reason, e.resend) + suffix("", e.Key, e.keyUnsent)
}

// Unwrap exposes both the reason and the cause to errors.Is and errors.As.
func (e *CallError) Unwrap() []error {
	var errs []error
	if e.Reason != nil {
		errs = append(errs, e.Reason)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// KeyOf returns the idempotency key carried by an error from a call, or "".
func KeyOf(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Key
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Key
	}
	var sc *StreamCutError
	if errors.As(err, &sc) {
		return sc.Key
	}
	return ""
}

// AttemptsOf returns the attempt records carried by an error from a call.
func AttemptsOf(err error) []Attempt {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Attempts
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Attempts
	}
	var sc *StreamCutError
	if errors.As(err, &sc) {
		return sc.Attempts
	}
	return nil
}

// ErrRateLimited: the server rate-limited the call (a 403 or 429 with a
// rate-limit signal, or a 503 with an exhausted quota) and the call could not
// wait for the reset: the wait was over MaxRetryAfter or past the deadline,
// or the attempts or the budget ran out, or the server said not to retry.
// The error is a *RateLimitError (errors.As) naming the reset.
var ErrRateLimited = errors.New("rate limited by the server")

// RateLimitError is the Reason of a call the server's rate limit stopped. It
// matches ErrRateLimited and the limit that stopped the call.
type RateLimitError struct {
	// Reset is when the server said the limit resets or to come back: the
	// answer's time plus its Retry-After, or the x-ratelimit-reset or
	// RateLimit reset it named; zero when it named none. Reschedule the
	// work for then.
	Reset time.Time
	// Header names the header Reset comes from: Retry-After,
	// X-Ratelimit-Reset, RateLimit or RateLimit-Reset ("" with no Reset).
	Header string
	// Limit is what stopped the call (ErrRetryAfterTooLong,
	// ErrAttemptsExhausted, ErrBudgetExhausted, ErrDeadline); nil when the
	// server said not to retry (Stripe-Should-Retry or x-should-retry:
	// false).
	Limit error
}

// Error names the reset and what stopped the call.
func (e *RateLimitError) Error() string {
	msg := ErrRateLimited.Error()
	if !e.Reset.IsZero() {
		msg += " until " + e.Reset.UTC().Format(time.RFC3339) + " (" + e.Header + ")"
	}
	if e.Limit != nil {
		msg += "; stopped by: " + e.Limit.Error()
	}
	return msg
}

// Unwrap exposes ErrRateLimited and the limit to errors.Is.
func (e *RateLimitError) Unwrap() []error {
	if e.Limit == nil {
		return []error{ErrRateLimited}
	}
	return []error{ErrRateLimited, e.Limit}
}

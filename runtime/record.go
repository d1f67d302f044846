package runtime

import (
	"context"
	"time"
)

// Reason says why an attempt was made.
type Reason int

const (
	// ReasonFirst is the first attempt of a call.
	ReasonFirst Reason = iota
	// ReasonStatus follows a retryable status.
	ReasonStatus
	// ReasonConnection follows a failure before the request was written.
	ReasonConnection
	// ReasonUnknownOutcome follows a failure after the request was written,
	// on a safe operation.
	ReasonUnknownOutcome
	// ReasonInProgress follows a 409 "in progress" on a keyed operation.
	ReasonInProgress
	// ReasonTransportReplay is a resend made by net/http's Transport on its
	// own (a dead reused connection); the engine counts it all the same.
	ReasonTransportReplay
	// ReasonRedirect is the send that follows a redirect the client
	// followed (303, 307, 308...): not a retry, charged nothing.
	ReasonRedirect
	// ReasonCredentialRefresh is the one resend after a 401, with the
	// credentials a source (WithCredentialSource) fetched afresh.
	ReasonCredentialRefresh
	// ReasonStreamResume is the first send of a reconnection: an event
	// stream or a download of a safe operation was cut, and the engine
	// resumes it (Last-Event-ID, Range), after the server's retry: wait or
	// a backoff.
	ReasonStreamResume
	// ReasonHedge is a hedged send (WithHedging): made while an earlier
	// send of the same round was still unanswered after the hedge delay,
	// which Wait holds. The round's first answer that settles the call
	// wins; the others are cancelled (OutcomeCancelled).
	ReasonHedge
)

// String names the reason.
func (r Reason) String() string {
	switch r {
	case ReasonStatus:
		return "status"
	case ReasonConnection:
		return "connection"
	case ReasonUnknownOutcome:
		return "unknown-outcome"
	case ReasonInProgress:
		return "in-progress"
	case ReasonTransportReplay:
		return "transport-replay"
	case ReasonRedirect:
		return "redirect"
	case ReasonCredentialRefresh:
		return "credential-refresh"
	case ReasonStreamResume:
		return "stream-resume"
	case ReasonHedge:
		return "hedge"
	default:
		return "first"
	}
}

// WaitSource says where the wait before an attempt came from.
type WaitSource int

const (
	// WaitNone: no wait (the first attempt, or a transport replay).
	WaitNone WaitSource = iota
	// WaitBackoff: full-jitter exponential backoff.
	WaitBackoff
	// WaitRetryAfter: the server's hint: Retry-After, retry-after-ms, or
	// the reset of a rate limit (x-ratelimit-reset, RateLimit).
	WaitRetryAfter
)

// String names the wait source.
func (w WaitSource) String() string {
	switch w {
	case WaitBackoff:
		return "backoff"
	case WaitRetryAfter:
		return "retry-after"
	default:
		return "none"
	}
}

// Outcome is how a call ended.
type Outcome int

const (
	// OutcomePending: the call goes on after this attempt.
	OutcomePending Outcome = iota
	// OutcomeSuccess: a response the caller will decode as a result.
	OutcomeSuccess
	// OutcomeRejected: the server said no: a definite answer that is not a
	// success (or a success the call could not take, such as a body over
	// the limit), or a limit reached after answers that were not.
	OutcomeRejected
	// OutcomeUnknown: the server may have executed the request (an attempt
	// was written and lost, and no later answer settled it).
	OutcomeUnknown
	// OutcomeNotSent: no attempt reached the server (refused connections,
	// failed handshakes): nothing was executed.
	OutcomeNotSent
	// OutcomeRedirected marks the record of a redirect hop (never Final):
	// the server answered StatusCode and the client followed it.
	OutcomeRedirected
	// OutcomeCancelled marks the record of a hedged round's loser (never
	// Final): another send of the round settled the call first, so this
	// one was cancelled, or its answer discarded unread; Err is
	// ErrHedgeLost.
	OutcomeCancelled
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case OutcomeSuccess:
		return "success"
	case OutcomeRejected:
		return "rejected"
	case OutcomeUnknown:
		return "unknown"
	case OutcomeNotSent:
		return "not-sent"
	case OutcomeRedirected:
		return "redirected"
	case OutcomeCancelled:
		return "cancelled"
	default:
		return "pending"
	}
}

// Attempt records one send of a call's request.
type Attempt struct {
	Operation string
	// Number counts from 1.
	Number int
	Key    string
	Reason Reason
	// StatusCode is 0 when no response arrived; Err is the transport error.
	StatusCode int
	Err        error
	// Wait is how long the engine waited before this attempt, and WaitSource
	// where that wait came from.
	Wait       time.Duration
	WaitSource WaitSource
	// BudgetLeft is the class's retry budget when the attempt's result was
	// settled (a retry it leads to already paid for); +Inf when the budget
	// is unlimited.
	BudgetLeft float64
	// TimeLeft is the time to the deadline when the attempt started (0 when
	// the call has no deadline).
	TimeLeft time.Duration
	// Final marks the call's last attempt; Outcome is then set.
	Final   bool
	Outcome Outcome
}

// Observer receives one event per attempt, when the attempt's result is known
// (before any wait that follows it). When the call ends during that wait (its
// context is cancelled), the same attempt is delivered once more with Final
// set. It is called synchronously from the calling goroutine: keep it fast.
// ctx is the call's context: the caller's values (a trace span, say), plus
// what a CallObserver's StartCall added.
type Observer interface {
	ObserveAttempt(ctx context.Context, a Attempt)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(context.Context, Attempt)

// ObserveAttempt calls f(ctx, a).
func (f ObserverFunc) ObserveAttempt(ctx context.Context, a Attempt) { f(ctx, a) }

// CallObserver is an Observer that also hears of each call's start and end,
// for tracing: StartCall can open a span and put it in the context, which
// request editors (to inject trace headers), the attempts, nested calls and
// ObserveAttempt then see; EndCall closes it. Calls the engine refuses before
// starting (a nil operation or URL) reach neither.
type CallObserver interface {
	Observer
	// StartCall runs before the call's first attempt, with the caller's
	// context, the operation and the request (whose Key may still be empty;
	// records carry the key the call uses). The context it returns becomes
	// the call's context; return ctx to add nothing.
	StartCall(ctx context.Context, op *Operation, req *Request) context.Context
	// EndCall runs once, when the call ends: with its outcome, its attempt
	// records in order (none when no attempt was sent) and the error the
	// caller gets (nil on success). A call that returns a success body ends
	// when the caller is done with it: a Decode function's error (ErrDecode,
	// outcome OutcomeRejected), or the body decoded, read to its end or
	// closed (OutcomeSuccess).
	EndCall(ctx context.Context, outcome Outcome, attempts []Attempt, err error)
}

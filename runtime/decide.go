package runtime

import "net/http"

// action is what the engine does with one attempt's result.
type action int

const (
	// actReturn hands the answer to the caller: a success, or a status no
	// rule applies to (a *StatusError with a nil Reason when >= 400).
	actReturn action = iota
	// actRetry makes another attempt if the limits allow it.
	actRetry
	// actFail stops with the verdict's rule.
	actFail
)

// verdict is the decision table's answer for one attempt.
type verdict struct {
	act action
	// why is the reason of the next attempt when act is actRetry.
	why Reason
	// rule is the sentinel that stops the call when act is actFail.
	rule error
	// unknown: the server may have executed this attempt.
	unknown bool
}

// safe reports whether op may be resent after an unknown outcome.
func (op *Operation) safe() bool { return op.Safety == Idempotent || op.Safety == Keyed }

// decideStatus applies DESIGN.md section 4 to a response status.
//
// replayed says the server marked the answer as the stored result of the
// key's first execution (Idempotent-Replayed: true, as the ledger and
// Stripe-style servers send it): a keyed operation's 409 or 422 is then the
// business answer itself, final, not "in progress" or "key reused".
//
// fresh says the key was made by the engine for this call and this is the
// call's first send: no earlier request with the key exists, so a 409
// cannot be "in progress" and a 422 cannot be "key reused". They are the
// operation's business answers (a conflict, a validation error).
func decideStatus(op *Operation, status int, replayed, fresh bool) verdict {
	// A gateway's 502/504 proves nothing about the origin, and a 409 on a
	// keyed operation says the first attempt is still running.
	unknown := status == http.StatusBadGateway || status == http.StatusGatewayTimeout
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		status == http.StatusProxyAuthRequired:
		return verdict{act: actFail, rule: ErrUnauthorized}
	case status == http.StatusPreconditionFailed:
		return verdict{act: actFail, rule: ErrPreconditionFailed}
	case replayed:
		return verdict{act: actReturn}
	case op.Safety == Keyed && fresh && (status == http.StatusConflict || status == http.StatusUnprocessableEntity):
		return verdict{act: actReturn}
	case op.Safety == Keyed && status == http.StatusConflict:
		return verdict{act: actRetry, why: ReasonInProgress, unknown: true}
	case op.Safety == Keyed && status == http.StatusUnprocessableEntity:
		return verdict{act: actFail, rule: ErrKeyReuse}
	case op.Retryable.Contains(status) && (op.safe() || status == http.StatusTooManyRequests):
		return verdict{act: actRetry, why: ReasonStatus, unknown: unknown}
	}
	return verdict{act: actReturn, unknown: unknown}
}

// decideError applies DESIGN.md section 4 to an attempt that got no
// response. written says whether the request may have reached the server.
func decideError(op *Operation, written bool) verdict {
	switch {
	case !written:
		// Nothing reached the server: resending is safe for every operation.
		return verdict{act: actRetry, why: ReasonConnection}
	case op.safe():
		return verdict{act: actRetry, why: ReasonUnknownOutcome, unknown: true}
	}
	return verdict{act: actFail, rule: ErrOutcomeUnknown, unknown: true}
}

// limitError is the rules that still hold when a call stops (ErrInProgress,
// ErrOutcomeUnknown) joined to what stopped it (a limit such as
// ErrAttemptsExhausted, or a rule; nil for a cancellation). errors.Is
// matches each.
type limitError struct {
	rules []error
	limit error
}

// Error names the rules, then what stopped the call.
func (e *limitError) Error() string {
	msg := ""
	for i, r := range e.rules {
		if i > 0 {
			msg += "; "
		}
		msg += r.Error()
	}
	if e.limit != nil {
		msg += "; stopped by: " + e.limit.Error()
	}
	return msg
}

// Unwrap exposes every sentinel.
func (e *limitError) Unwrap() []error {
	if e.limit == nil {
		return e.rules
	}
	return append(e.rules[:len(e.rules):len(e.rules)], e.limit)
}

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
	// limited: the server rate-limited the attempt; a limit that stops the
	// retry is reported as a *RateLimitError.
	limited bool
}

// safe reports whether op may be resent after an unknown outcome.
func (op *Operation) safe() bool { return op.Safety == Idempotent || op.Safety == Keyed }

// decideStatus applies DESIGN.md section 4 to a response status: the
// status table (decideTable), then the server's explicit word (heed).
func decideStatus(op *Operation, status int, replayed bool, key keyAnswer, adv *advice) verdict {
	return adv.heed(op, decideTable(op, status, replayed, key, adv.limited), replayed)
}

// decideTable is the status table.
//
// replayed says the server marked the answer as the stored result of the
// key's first execution (Idempotent-Replayed: true, as the ledger and
// Stripe-style servers send it): a keyed operation's 409 or 422 is then the
// business answer itself, final, not "in progress" or "key reused".
//
// key is what a keyed operation's 409 or 422 says about its key
// (readKeyAnswer): the operation's own answer (a conflict, a validation
// error) when the key is the engine's and this is its first send, or when
// the server's problem type is not the idempotency layer's; else "key
// reused" or "in progress", by the problem type or, without one, the status.
//
// limited says the answer carries a rate-limit signal (readAdvice).
func decideTable(op *Operation, status int, replayed bool, key keyAnswer, limited bool) verdict {
	// A gateway's 502/504 proves nothing about the origin, and a 409 on a
	// keyed operation says the first attempt is still running.
	unknown := status == http.StatusBadGateway || status == http.StatusGatewayTimeout
	switch {
	case limited && (status == http.StatusForbidden || status == http.StatusTooManyRequests):
		// A rate limit, not an auth failure, and whatever the retryable
		// set: the server refused before executing, so even an unsafe
		// operation is sent again once the limit resets.
		return verdict{act: actRetry, why: ReasonStatus, limited: true}
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		status == http.StatusProxyAuthRequired:
		return verdict{act: actFail, rule: ErrUnauthorized}
	case status == http.StatusPreconditionFailed:
		return verdict{act: actFail, rule: ErrPreconditionFailed}
	case replayed:
		return verdict{act: actReturn}
	case op.Safety == Keyed && isKeyStatus(status):
		return keyVerdict(status, key)
	case op.Retryable.Contains(status) && (op.safe() || status == http.StatusTooManyRequests):
		// limited here is a 503's exhausted quota: its reset is the wait,
		// and a call that cannot wait for it says it was rate limited.
		return verdict{act: actRetry, why: ReasonStatus, unknown: unknown, limited: limited}
	}
	return verdict{act: actReturn, unknown: unknown}
}

// isKeyStatus reports the statuses the idempotency layer answers a key with.
func isKeyStatus(status int) bool {
	return status == http.StatusConflict || status == http.StatusUnprocessableEntity
}

// keyVerdict decides a keyed operation's 409 or 422.
func keyVerdict(status int, key keyAnswer) verdict {
	switch {
	case key == keyBusiness:
		return verdict{act: actReturn}
	case key == keyReused || key == keyUnsaid && status == http.StatusUnprocessableEntity:
		return verdict{act: actFail, rule: ErrKeyReuse}
	}
	return verdict{act: actRetry, why: ReasonInProgress, unknown: true}
}

// heed applies the server's explicit word (Stripe-Should-Retry,
// x-should-retry) to the table's verdict v. "false" stops any retry.
// "true" retries what the table would return, for a safe operation only:
// Stripe promises that a retry with the same idempotency key is safe, which
// says nothing of a request without one, so an unsafe operation keeps the
// table's verdict. "true" never overrides a rule (auth, 412, key reuse) nor
// a replayed stored answer, which a retry would only fetch again.
func (a *advice) heed(op *Operation, v verdict, replayed bool) verdict {
	switch {
	case a.word == wordNoRetry && v.act == actRetry:
		switch {
		case v.limited:
			return verdict{act: actFail, rule: a.limitError(nil), unknown: v.unknown}
		case v.why == ReasonInProgress:
			return verdict{act: actFail, rule: ErrInProgress, unknown: v.unknown}
		}
		return verdict{act: actReturn, unknown: v.unknown}
	case a.word == wordRetry && v.act == actReturn && op.safe() && !replayed:
		return verdict{act: actRetry, why: ReasonStatus, unknown: v.unknown}
	}
	return v
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

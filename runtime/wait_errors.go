package runtime

import (
	"errors"
	"fmt"
	"strings"
)

// The ends of a wait other than its success, matched with errors.Is on
// the *WaitError a Wait<Name> method returns.
var (
	// ErrWaitFailed: a poll's result matched the waiter's failOn.
	ErrWaitFailed = errors.New("the result reached the waiter's failure state")
	// ErrWaitTimeout: the next poll could not start before the wait's
	// deadline (its timeout, or its context's deadline).
	ErrWaitTimeout = errors.New("the wait's deadline passed before the result reached the expected state")
)

// WaitError is a wait that ended without its result reaching the waiter's
// until state.
type WaitError struct {
	// Waiter is the waiter's name.
	Waiter string
	// Polls is the number of calls the wait made.
	Polls int
	// Last is the last result a poll returned (nil when none succeeded); it
	// has the type the operation's method returns (*Payment, say).
	Last any
	// Value is the string form of the failOn field that matched
	// (ErrWaitFailed only).
	Value string
	// Err is why the wait ended: ErrWaitFailed, ErrWaitTimeout,
	// ErrBudgetExhausted or the context's error.
	Err error
	// Cause is the last poll's error when it failed (a pending 404, a 503),
	// or context.DeadlineExceeded when the context's deadline was the
	// wait's; nil otherwise.
	Cause error
}

// Error names the waiter, the reason, the polls and the cause.
func (e *WaitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wait %s: %v after %d polls", e.Waiter, e.Err, e.Polls)
	if e.Value != "" {
		fmt.Fprintf(&b, " (value %q)", e.Value)
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, ": %v", e.Cause)
	}
	return b.String()
}

// Unwrap exposes the reason and the cause to errors.Is and errors.As.
func (e *WaitError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

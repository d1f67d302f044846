package outbox

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrPermanent marks a publish failure that no retry can cure: the broker
// refuses the payload's size, the topic is no valid destination. Publish
// hooks wrap such errors with Permanent; the relay parks the event instead
// of retrying it on every pass.
var ErrPermanent = errors.New("permanent publish failure")

// Permanent wraps err so that errors.Is(err, ErrPermanent) holds; the
// message and errors.Is/As on err are kept. A nil err stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }

func (e *permanentError) Unwrap() []error { return []error{ErrPermanent, e.err} }

// ErrParked is matched (errors.Is) by the *ParkedError the relay reports
// for each event it parked.
var ErrParked = errors.New("outbox: event parked")

// ParkedError reports an event the relay parked after a permanent publish
// failure (Err). The event stays in idem_outbox, listed by Backlog and
// `idemgen ledger`, until Unpark returns it to the relay.
type ParkedError struct {
	EventID string
	Err     error
}

func (e *ParkedError) Error() string {
	return fmt.Sprintf("outbox: event %.64q parked: %v", e.EventID, e.Err)
}

// Unwrap returns ErrParked and the publish error.
func (e *ParkedError) Unwrap() []error { return []error{ErrParked, e.Err} }

// ErrNotParked is returned by Unpark and RetryParked for an event that is
// not parked (never was, or was returned already).
var ErrNotParked = errors.New("outbox: no such parked event")

// maxLastError bounds a stored error message: a driver or broker error can
// quote a whole payload.
const maxLastError = 1024

// bounded cuts s to at most n bytes on a rune boundary, so the stored text
// stays valid UTF-8.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

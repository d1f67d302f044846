package ledger

import "time"

// Stuck reports whether a sweep at now would release r: it is in progress
// and its lease has expired (the process running it crashed, or overran
// it). It is the rule Store.Stuck applies in its query.
func (r Record) Stuck(now time.Time) bool {
	return r.State == StateInProgress && !now.Before(r.LeaseExpires)
}

// Expired reports whether a sweep at now would purge r: it is past its TTL
// and completed, or in progress with a dead lease. It is the rule
// Store.Purge applies in its query.
func (r Record) Expired(now time.Time) bool {
	return !now.Before(r.ExpiresAt) && (r.State == StateCompleted || !now.Before(r.LeaseExpires))
}

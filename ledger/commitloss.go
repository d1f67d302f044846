package ledger

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
)

// errCommit marks a failed Commit: unlike a failure before it, the outcome
// may be unknown (a networked database may have committed and lost the
// reply).
type errCommit struct{ err error }

func (e errCommit) Error() string { return "ledger: commit: " + e.err.Error() }
func (e errCommit) Unwrap() error { return e.err }

// commitSettled is what the ledger learnt of a failed Commit's outcome.
type commitSettled int

const (
	// commitUnknown: the row could not be read, or shows neither outcome
	// (still in progress under this owner after a failed release, or taken
	// over): the answer must not claim either.
	commitUnknown commitSettled = iota
	// commitLanded: the row is completed by this execution, so the
	// business transaction committed with it.
	commitLanded
	// commitUndone: the transaction did not commit and the key is free.
	commitUndone
)

// definiteRollback reports whether a failed COMMIT's error is the server's
// own answer that the transaction rolled back: PostgreSQL's SQLSTATE class 40
// (serialization failure, deadlock) or 23 (a deferred constraint), read
// through the SQLState method of pgx's and lib/pq's errors. 40003
// (statement completion unknown) is not: as with a dropped connection, or a
// session terminated while it waited for a synchronous standby (57P01,
// after the local commit), the server may have committed. sql.ErrTxDone is
// a rollback too: the transaction ended here, before COMMIT was sent.
func definiteRollback(err error) bool {
	if errors.Is(err, sql.ErrTxDone) {
		// Rolled back here (the lease ran out) before COMMIT was sent.
		return true
	}
	var st interface{ SQLState() string }
	if !errors.As(err, &st) {
		return false
	}
	code := st.SQLState()
	return code != "40003" && (strings.HasPrefix(code, "40") || strings.HasPrefix(code, "23"))
}

// settleCommit finds out, after a Commit that failed without a definite
// rollback, whether the business transaction committed. It first releases
// the reservation (guarded by owner and state, so it never deletes a
// completed row; on PostgreSQL it waits for the lock of a transaction still
// finishing on the server), then reads the row back. Both run on a new
// connection (the pool discards the broken one), which after a failover
// reaches the new primary, within releaseTimeout.
func (l *Ledger) settleCommit(r *http.Request, rt *route, id ID, owner string) commitSettled {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), releaseTimeout)
	defer cancel()
	if err := l.cfg.Store.Release(ctx, id, owner); err != nil {
		l.onError(r, rt, err)
	}
	rec, found, err := l.cfg.Store.Get(ctx, id)
	switch {
	case err != nil:
		l.onError(r, rt, err)
		return commitUnknown
	case !found:
		// Released (or never committed and swept): a completion, once
		// committed, stays until the key's TTL.
		return commitUndone
	case rec.State == StateCompleted && rec.LeaseOwner == owner:
		return commitLanded
	}
	return commitUnknown
}

// answerFailedCommit answers a request whose Commit returned err: the
// handler's own answer when the read-back shows the commit landed, a 503
// "not executed" when it shows it did not, and a 503 "outcome unknown"
// otherwise. Every 503 carries Retry-After, and a resend with the same key
// then replays or executes once.
func (l *Ledger) answerFailedCommit(w http.ResponseWriter, r *http.Request, rt *route, id ID, owner string, err error, rec *recorder) {
	if owner == "" {
		// An unkeyed request has no row to read back.
		l.report(w, r, rt, errCommit{err}, http.StatusServiceUnavailable)
		return
	}
	if definiteRollback(err) {
		l.fail(w, r, rt, id, owner, err, http.StatusServiceUnavailable)
		return
	}
	switch l.settleCommit(r, rt, id, owner) {
	case commitLanded:
		l.onError(r, rt, err)
		rec.flush(w)
	case commitUndone:
		l.onError(r, rt, err)
		writeUnavailable(w)
	default:
		l.report(w, r, rt, errCommit{err}, http.StatusServiceUnavailable)
	}
}

package journal

import (
	"context"
	"fmt"
	"time"
)

// Claim leases to owner, until now+lease, at most limit unresolved entries
// that settled (idemrt.JournalEntry.Settles: the deadline, the end of the
// hold of the call that recorded it, else the creation) at least grace
// before now and that no other reconciler holds. On PostgreSQL the rows are locked with
// SKIP LOCKED and the lease is taken in the same transaction, so several
// reconcilers on one database never claim one entry together; on SQLite
// the single writer does the same.
func (s *SQL) Claim(ctx context.Context, owner string, now time.Time, grace, lease time.Duration, limit int) ([]Entry, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("journal: claim: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, s.q(`SELECT `+entryColumns+`, `+stateColumns+` FROM idem_journal
WHERE state = ? AND settles_at <= ? AND lease_until <= ? ORDER BY settles_at LIMIT ?`+s.d.LockSkip),
		string(StateUnresolved), nanos(now.Add(-grace)), nanos(now), limit)
	if err != nil {
		return nil, fmt.Errorf("journal: claim: %w", err)
	}
	es, err := scanEntries(rows)
	if err != nil {
		return nil, fmt.Errorf("journal: claim: %w", err)
	}
	until := now.Add(lease)
	claimed := es[:0]
	for _, e := range es {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE idem_journal SET lease_owner = ?, lease_until = ?
WHERE id = ? AND state = ? AND lease_until <= ?`), owner, nanos(until), e.ID, string(StateUnresolved), nanos(now))
		if err != nil {
			return nil, fmt.Errorf("journal: claim: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			e.LeaseOwner, e.LeaseUntil = owner, until
			claimed = append(claimed, e)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("journal: claim: %w", err)
	}
	return claimed, nil
}

// Settle ends entry id, which owner holds: state Resolved or NeedsPerson,
// with the reconciler's resolution, the status it saw (0 for none) and a
// note. It releases the lease. An entry owner no longer holds is left as
// it is (ErrLeaseLost).
func (s *SQL) Settle(ctx context.Context, id, owner string, state State, resolution string, status int, note string) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE idem_journal SET state = ?, resolution = ?, last_status = ?, note = ?,
resolved_at = ?, lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?`),
		string(state), resolution, status, note, nanos(s.now()), id, owner)
	if err != nil {
		return fmt.Errorf("journal: settle: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrLeaseLost
	}
	return nil
}

// Renew extends the lease owner holds on entry id to until: a Reconciler
// renews it as it starts to work an entry, so that the lease outlasts the
// send it makes (Reconciler.Lease). An entry owner no longer holds, or that
// is no longer unresolved, is left as it is (ErrLeaseLost).
func (s *SQL) Renew(ctx context.Context, id, owner string, until time.Time) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE idem_journal SET lease_until = ? WHERE id = ? AND lease_owner = ? AND state = ?`),
		nanos(until), id, owner, string(StateUnresolved))
	if err != nil {
		return fmt.Errorf("journal: renew: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrLeaseLost
	}
	return nil
}

// Dequeue marks the queued entry id, which owner holds, as no longer
// queued: committed before its first send, so that a reconciler that dies
// during that send leaves an entry that is never sent blindly again (an
// unsafe one is then looked up, not resent).
func (s *SQL) Dequeue(ctx context.Context, id, owner string) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE idem_journal SET queued = 0 WHERE id = ? AND lease_owner = ?`), id, owner)
	if err != nil {
		return fmt.Errorf("journal: dequeue: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrLeaseLost
	}
	return nil
}

package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// The sweeper's rules, shared by the statements that act on them (Stuck,
// Purge) and the ones that only count them (Stats), so an inspection
// reports exactly what a sweep would do.
const (
	// stuckWhere: in progress, lease expired (args: state, now).
	stuckWhere = `state = ? AND lease_expires <= ?`
	// purgeWhere: past the TTL; an in-progress row also needs a dead lease
	// (args: now, completed state, now).
	purgeWhere = `expires_at <= ? AND (state = ? OR lease_expires <= ?)`
)

func stuckArgs(now time.Time) []any {
	return []any{string(ledger.StateInProgress), nanos(now)}
}

func purgeArgs(now time.Time) []any {
	n := nanos(now)
	return []any{n, string(ledger.StateCompleted), n}
}

// ErrNotLedger is matched (errors.Is) by the NotLedgerError that
// CheckSchema and the read-only openers return.
var ErrNotLedger = errors.New("not an idemgen ledger")

// NotLedgerError says why a database is not a ledger: a table Migrate
// creates is missing or lacks a column the store reads, or the file is not
// a database at all (Table is then empty).
type NotLedgerError struct {
	Table string
	Err   error
}

func (e *NotLedgerError) Error() string {
	if e.Table == "" {
		return fmt.Sprintf("sqlstore: %v: %v", ErrNotLedger, e.Err)
	}
	return fmt.Sprintf("sqlstore: %v: table %s: %v", ErrNotLedger, e.Table, e.Err)
}

// Is makes errors.Is(err, ErrNotLedger) hold.
func (e *NotLedgerError) Is(target error) bool { return target == ErrNotLedger }

func (e *NotLedgerError) Unwrap() error { return e.Err }

// CheckSchema returns a NotLedgerError unless the database holds the tables
// Migrate creates, with the columns the store reads. It reads no rows and
// writes nothing.
func (s *Store) CheckSchema(ctx context.Context) error {
	for _, c := range []struct{ table, columns string }{
		{"idem_ledger", recordColumns},
		{"idem_outbox", "seq, event_id, topic, created_at, attempts, delivered_at"},
	} {
		rows, err := s.rdb.QueryContext(ctx, `SELECT `+c.columns+` FROM `+c.table+` WHERE 1 = 0`)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("sqlstore: %w", ctx.Err())
			}
			return &NotLedgerError{Table: c.table, Err: err}
		}
		rows.Close()
	}
	return nil
}

// Stats counts a ledger's rows at one instant.
type Stats struct {
	// States counts rows per stored state.
	States map[ledger.State]int64
	// Stuck counts the in-progress rows whose lease expired: the rows Stuck
	// lists and a sweep releases.
	Stuck int64
	// Expired counts the rows past their TTL that a sweep purges.
	Expired int64
}

// Stats counts the rows by state, and the rows a sweep at now would
// release or purge. It only reads.
func (s *Store) Stats(ctx context.Context, now time.Time) (Stats, error) {
	st := Stats{States: map[ledger.State]int64{}}
	rows, err := s.rdb.QueryContext(ctx, `SELECT state, COUNT(*) FROM idem_ledger GROUP BY state`)
	if err != nil {
		return st, fmt.Errorf("sqlstore: stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return st, fmt.Errorf("sqlstore: stats: %w", err)
		}
		st.States[ledger.State(state)] = n
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("sqlstore: stats: %w", err)
	}
	err = s.rdb.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM idem_ledger WHERE `+stuckWhere), stuckArgs(now)...).Scan(&st.Stuck)
	if err == nil {
		err = s.rdb.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM idem_ledger WHERE `+purgeWhere), purgeArgs(now)...).Scan(&st.Expired)
	}
	if err != nil {
		return st, fmt.Errorf("sqlstore: stats: %w", err)
	}
	return st, nil
}

// Find lists up to limit rows with the given key, oldest first. An empty
// caller or operation matches any, so a key can be looked up without
// knowing whose it is.
func (s *Store) Find(ctx context.Context, id ledger.ID, limit int) ([]ledger.Record, error) {
	q := `SELECT ` + recordColumns + ` FROM idem_ledger WHERE idem_key = ?`
	args := []any{id.Key}
	if id.Caller != "" {
		q += ` AND caller = ?`
		args = append(args, id.Caller)
	}
	if id.Operation != "" {
		q += ` AND operation = ?`
		args = append(args, id.Operation)
	}
	q += ` ORDER BY created_at, caller, operation LIMIT ?`
	rows, err := s.rdb.QueryContext(ctx, s.q(q), append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: find: %w", err)
	}
	defer rows.Close()
	var out []ledger.Record
	for rows.Next() {
		rec, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: find: %w", err)
		}
		out = append(out, rec)
	}
	return out, rows.Err()
}

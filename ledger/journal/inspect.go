package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrLeaseLost is returned by Settle and Dequeue for an entry the caller
// no longer holds: its lease expired and another reconciler claimed it.
var ErrLeaseLost = errors.New("journal: the entry's lease was lost")

// Counts returns how many entries are in each state.
func (s *SQL) Counts(ctx context.Context) (map[State]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT state, COUNT(*) FROM idem_journal GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("journal: counts: %w", err)
	}
	defer rows.Close()
	out := map[State]int64{StateUnresolved: 0, StateResolved: 0, StateNeedsPerson: 0}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("journal: counts: %w", err)
		}
		out[State(st)] = n
	}
	return out, rows.Err()
}

// List returns at most limit entries, the latest first; state "" lists
// every state.
func (s *SQL) List(ctx context.Context, state State, limit int) ([]Entry, error) {
	where, args := ``, []any{}
	if state != "" {
		where, args = `WHERE state = ? `, append(args, string(state))
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+entryColumns+`, `+stateColumns+` FROM idem_journal `+where+
		`ORDER BY created_at DESC LIMIT ?`), append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("journal: list: %w", err)
	}
	es, err := scanEntries(rows)
	if err != nil {
		return nil, fmt.Errorf("journal: list: %w", err)
	}
	return es, nil
}

// Get returns entry id and its attempts, in order; found is false when
// there is no such entry.
func (s *SQL) Get(ctx context.Context, id string) (e Entry, attempts []AttemptRow, found bool, err error) {
	row := s.db.QueryRowContext(ctx, s.q(`SELECT `+entryColumns+`, `+stateColumns+` FROM idem_journal WHERE id = ?`), id)
	e, err = scanEntry(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, nil, false, nil
	}
	if err != nil {
		return Entry{}, nil, false, fmt.Errorf("journal: get: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT number, reason, status, outcome, error, wait_ns, final
FROM idem_journal_attempt WHERE entry_id = ? ORDER BY seq`), id)
	if err != nil {
		return Entry{}, nil, false, fmt.Errorf("journal: get: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a AttemptRow
		var wait int64
		var final int
		if err := rows.Scan(&a.Number, &a.Reason, &a.Status, &a.Outcome, &a.Error, &wait, &final); err != nil {
			return Entry{}, nil, false, fmt.Errorf("journal: get: %w", err)
		}
		a.Wait, a.Final = time.Duration(wait), final != 0
		attempts = append(attempts, a)
	}
	return e, attempts, true, rows.Err()
}

// Package journal keeps a client's outgoing intents in SQL (the durable
// idemrt.Journal behind idemrt.WithJournal, on SQLite or PostgreSQL) and
// reconciles the ones left unresolved: a Reconciler resends keyed entries
// with their key, looks unsafe ones up through x-lookup, and reports the
// rest as needing a person. The store drivers open it: sqlitestore.OpenJournal,
// pgstore.OpenJournal.
package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"

	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// State is where an entry stands.
type State string

const (
	// StateUnresolved: the call is in flight, ended with an unknown
	// outcome, or its process died; or the entry is queued for its first
	// send.
	StateUnresolved State = "unresolved"
	// StateResolved: the call ended definitively, or a reconciler settled it.
	StateResolved State = "resolved"
	// StateNeedsPerson: a reconciler could not settle it and never will
	// alone.
	StateNeedsPerson State = "needs-person"
)

// SQL is an idemrt.Journal on a database/sql handle, with what a
// Reconciler needs (Claim, Settle) and what an inspection reads (List,
// Get, Counts). It is safe for concurrent use.
type SQL struct {
	db  *sql.DB
	d   sqlstore.Dialect
	now func() time.Time
}

var _ idemrt.JournalHolder = (*SQL)(nil)

// New returns the journal on db, creating its tables if they are missing.
// db may be the ledger's own handle (sqlstore.Store.DB): the journal's
// tables sit beside the ledger's, and an application's transaction on that
// handle can record an entry (RecordTx).
func New(ctx context.Context, db *sql.DB, d sqlstore.Dialect) (*SQL, error) {
	if err := migrate(ctx, db, d); err != nil {
		return nil, err
	}
	return Wrap(db, d), nil
}

// Wrap returns the journal on db without creating anything: for a
// read-only handle whose schema CheckSchema accepted.
func Wrap(db *sql.DB, d sqlstore.Dialect) *SQL { return &SQL{db: db, d: d, now: time.Now} }

// DB returns the underlying handle.
func (s *SQL) DB() *sql.DB { return s.db }

// Close closes the underlying handle.
func (s *SQL) Close() error { return s.db.Close() }

func (s *SQL) q(query string) string { return s.d.Rebind(query) }

// entryColumns are the columns of an idemrt.JournalEntry, in scanEntry's order.
const entryColumns = `id, operation, safety, method, url, header, body, partial, queued, idem_key, fingerprint,
created_at, deadline, ttl`

// Record implements idemrt.Journal.
func (s *SQL) Record(ctx context.Context, e *idemrt.JournalEntry) error {
	return s.insert(ctx, s.db, e)
}

// RecordTx records e in the application's transaction tx, so the intent
// and the application's own rows commit together or not at all: the outbox
// for HTTP calls. Make e with idemrt.NewJournalEntry (Queued): a Reconciler
// makes its first send once it is older than the grace. tx must be a
// transaction on the journal's database.
func (s *SQL) RecordTx(ctx context.Context, tx *sql.Tx, e *idemrt.JournalEntry) error {
	return s.insert(ctx, tx, e)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *SQL) insert(ctx context.Context, x execer, e *idemrt.JournalEntry) error {
	hdr, err := json.Marshal(e.Header)
	if err != nil {
		return fmt.Errorf("journal: record: %w", err)
	}
	body := e.Body
	if body == nil {
		body = []byte{}
	}
	_, err = x.ExecContext(ctx, s.q(`INSERT INTO idem_journal (`+entryColumns+`, settles_at, state)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		e.ID, e.Operation, e.Safety.String(), e.Method, e.URL, string(hdr), body, boolInt(e.Partial), boolInt(e.Queued),
		e.Key, e.Fingerprint, nanos(e.Created), nanos(e.Deadline), int64(e.TTL), nanos(e.Settles()), string(StateUnresolved))
	if err != nil {
		return fmt.Errorf("journal: record: %w", err)
	}
	return nil
}

// Hold implements idemrt.JournalHolder: the entry's call may be in flight
// until until, which becomes the time the entry settles (never before its
// deadline or its creation), so Claim leaves it alone until a grace after.
// A resolved entry is left as it is.
func (s *SQL) Hold(ctx context.Context, id string, until time.Time) error {
	t := nanos(until)
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE idem_journal SET settles_at = CASE WHEN deadline > ? THEN deadline
WHEN created_at > ? THEN created_at ELSE ? END WHERE id = ? AND state = ?`), t, t, t, id, string(StateUnresolved))
	if err != nil {
		return fmt.Errorf("journal: hold: %w", err)
	}
	return nil
}

// Attempted implements idemrt.Journal.
func (s *SQL) Attempted(ctx context.Context, id string, a idemrt.Attempt) error {
	return s.attempt(ctx, id, a, "")
}

// Resolve implements idemrt.Journal: the entry is resolved, its resolution
// the call's outcome ("success", "rejected", "not-sent").
func (s *SQL) Resolve(ctx context.Context, id string, a idemrt.Attempt) error {
	return s.attempt(ctx, id, a, a.Outcome.String())
}

// attempt stores a and updates the entry's summary in one transaction;
// resolution, when set, resolves the entry.
func (s *SQL) attempt(ctx context.Context, id string, a idemrt.Attempt, resolution string) error {
	errText := ""
	if a.Err != nil {
		errText = a.Err.Error()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("journal: attempt: %w", err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO idem_journal_attempt (`+attemptColumns+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
		id, a.Number, a.Reason.String(), a.StatusCode, a.Outcome.String(), errText, int64(a.Wait), boolInt(a.Final))
	if err != nil {
		return fmt.Errorf("journal: attempt: %w", err)
	}
	set, args := `attempts = attempts + 1, last_status = ?, last_outcome = ?, last_error = ?`, []any{a.StatusCode, a.Outcome.String(), errText}
	if resolution != "" {
		set += `, state = ?, resolution = ?, resolved_at = ?`
		args = append(args, string(StateResolved), resolution, nanos(s.now()))
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE idem_journal SET `+set+` WHERE id = ?`), append(args, id)...); err != nil {
		return fmt.Errorf("journal: attempt: %w", err)
	}
	return tx.Commit()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nanos is t as the BIGINT the tables keep, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos reads a nanos column back.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

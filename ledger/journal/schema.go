package journal

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// schema returns the statements that create the journal's tables if they
// do not exist: one row per intent (idem_journal) and one per attempt
// (idem_journal_attempt). Times are Unix nanoseconds in BIGINT columns, as
// in the ledger's tables; 0 means none.
func schema(d sqlstore.Dialect) []string {
	seq := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if d.Name == "postgres" {
		seq = "BIGSERIAL PRIMARY KEY"
	}
	return []string{
		`CREATE TABLE IF NOT EXISTS idem_journal (
	id TEXT PRIMARY KEY,
	operation TEXT NOT NULL,
	safety TEXT NOT NULL,
	method TEXT NOT NULL,
	url TEXT NOT NULL,
	header TEXT NOT NULL,
	body ` + d.Blob + `,
	partial INTEGER NOT NULL,
	queued INTEGER NOT NULL,
	idem_key TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	deadline BIGINT NOT NULL,
	settles_at BIGINT NOT NULL,
	ttl BIGINT NOT NULL,
	state TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	last_status INTEGER NOT NULL DEFAULT 0,
	last_outcome TEXT NOT NULL DEFAULT '',
	last_error TEXT NOT NULL DEFAULT '',
	resolution TEXT NOT NULL DEFAULT '',
	note TEXT NOT NULL DEFAULT '',
	resolved_at BIGINT NOT NULL DEFAULT 0,
	lease_owner TEXT NOT NULL DEFAULT '',
	lease_until BIGINT NOT NULL DEFAULT 0
)`,
		`CREATE INDEX IF NOT EXISTS idem_journal_due ON idem_journal (state, settles_at)`,
		`CREATE TABLE IF NOT EXISTS idem_journal_attempt (
	seq ` + seq + `,
	entry_id TEXT NOT NULL,
	number INTEGER NOT NULL,
	reason TEXT NOT NULL,
	status INTEGER NOT NULL,
	outcome TEXT NOT NULL,
	error TEXT NOT NULL,
	wait_ns BIGINT NOT NULL,
	final INTEGER NOT NULL
)`,
		`CREATE INDEX IF NOT EXISTS idem_journal_attempt_entry ON idem_journal_attempt (entry_id, seq)`,
	}
}

// migrate creates the journal's tables; running it again changes nothing.
func migrate(ctx context.Context, db *sql.DB, d sqlstore.Dialect) error {
	for _, q := range schema(d) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("journal: migrate: %w", err)
		}
	}
	return nil
}

// CheckSchema returns a *sqlstore.NotLedgerError (errors.Is
// sqlstore.ErrNotLedger) unless db holds the journal's tables with the
// columns the journal reads. It reads no rows and writes nothing: the
// read-only openers call it.
func CheckSchema(ctx context.Context, db *sql.DB) error {
	for _, c := range []struct{ table, columns string }{
		{"idem_journal", entryColumns + ", " + stateColumns},
		{"idem_journal_attempt", attemptColumns},
	} {
		rows, err := db.QueryContext(ctx, `SELECT `+c.columns+` FROM `+c.table+` WHERE 1 = 0`)
		if err != nil {
			return &sqlstore.NotLedgerError{Table: c.table, Err: err}
		}
		rows.Close()
	}
	return nil
}

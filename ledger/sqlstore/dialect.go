// Package sqlstore implements ledger.Store, and the SQL the outbox needs, on
// database/sql for both SQLite and PostgreSQL: one set of statements written
// with '?' placeholders, rewritten per Dialect.
package sqlstore

import (
	"strconv"
	"strings"
)

// Dialect holds what differs between the databases.
type Dialect struct {
	// Name is "sqlite" or "postgres".
	Name string
	// Numbered placeholders ($1, $2...) instead of '?'.
	Numbered bool
	// Blob is the column type for raw bytes.
	Blob string
	// LockSkip is appended to a SELECT that claims rows for one worker when
	// several may run at once ("FOR UPDATE SKIP LOCKED"), or "" when the
	// database serialises writers anyway.
	LockSkip string
}

// SQLite is the dialect of modernc.org/sqlite.
var SQLite = Dialect{Name: "sqlite", Blob: "BLOB"}

// Postgres is the dialect of PostgreSQL through pgx.
var Postgres = Dialect{Name: "postgres", Numbered: true, Blob: "BYTEA", LockSkip: " FOR UPDATE SKIP LOCKED"}

// Rebind rewrites '?' placeholders for the dialect. Statements in this module
// never contain a literal '?' inside a string.
func (d Dialect) Rebind(q string) string {
	if !d.Numbered {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Schema returns the statements that create the ledger, outbox and consumer
// tables if they do not exist (idem_parked holds the events a consumer gave
// up on; see outbox.Park). Times are Unix nanoseconds in BIGINT columns so
// both databases compare them the same way.
func (d Dialect) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS idem_ledger (
	caller TEXT NOT NULL,
	operation TEXT NOT NULL,
	idem_key TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	state TEXT NOT NULL,
	status INTEGER NOT NULL DEFAULT 0,
	header TEXT NOT NULL DEFAULT '',
	body ` + d.Blob + `,
	lease_owner TEXT NOT NULL DEFAULT '',
	lease_expires BIGINT NOT NULL,
	created_at BIGINT NOT NULL,
	expires_at BIGINT NOT NULL,
	PRIMARY KEY (caller, operation, idem_key)
)`,
		`CREATE INDEX IF NOT EXISTS idem_ledger_lease ON idem_ledger (state, lease_expires)`,
		`CREATE INDEX IF NOT EXISTS idem_ledger_expiry ON idem_ledger (expires_at)`,
		`CREATE TABLE IF NOT EXISTS idem_outbox (
	seq ` + d.serial() + `,
	event_id TEXT NOT NULL UNIQUE,
	topic TEXT NOT NULL,
	payload ` + d.Blob + `,
	created_at BIGINT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	delivered_at BIGINT
)`,
		`CREATE INDEX IF NOT EXISTS idem_outbox_pending ON idem_outbox (delivered_at, seq)`,
		`CREATE TABLE IF NOT EXISTS idem_consumed (
	consumer TEXT NOT NULL,
	event_id TEXT NOT NULL,
	consumed_at BIGINT NOT NULL,
	PRIMARY KEY (consumer, event_id)
)`,
		`CREATE TABLE IF NOT EXISTS idem_parked (
	consumer TEXT NOT NULL,
	source TEXT NOT NULL,
	event_id TEXT NOT NULL,
	topic TEXT NOT NULL,
	payload ` + d.Blob + `,
	payload_bytes INTEGER NOT NULL,
	deliveries INTEGER NOT NULL,
	last_error TEXT NOT NULL,
	parked_at BIGINT NOT NULL,
	PRIMARY KEY (consumer, source, event_id)
)`,
	}
}

// Column is a column added to a table after the table's first release.
type Column struct{ Table, Name, Type string }

// AddedColumns lists the columns Migrate adds to tables that a previous
// version created without them. CREATE TABLE IF NOT EXISTS leaves an
// existing table as it is, so these are never in the CREATE statements:
// one path (probe, then ALTER TABLE ADD COLUMN) serves new and old
// databases alike.
func (d Dialect) AddedColumns() []Column {
	return []Column{
		// idem_outbox: set when the relay parks the event after a permanent
		// publish failure (NULL while it is pending or delivered), and the
		// last publish error.
		{"idem_outbox", "parked_at", "BIGINT"},
		{"idem_outbox", "last_error", "TEXT NOT NULL DEFAULT ''"},
	}
}

func (d Dialect) serial() string {
	if d.Name == "postgres" {
		return "BIGSERIAL PRIMARY KEY"
	}
	return "INTEGER PRIMARY KEY AUTOINCREMENT"
}

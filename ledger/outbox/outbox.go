// Package outbox carries side effects beyond the database: events are written
// in the business transaction (so they exist exactly when the business rows
// do), a relay delivers them at least once, and a consumer helper dedupes by
// the stable event id so the downstream effect happens exactly once.
package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// Event is one outbox message.
type Event struct {
	// ID is stable across redeliveries; consumers dedupe on it. Add fills in
	// a random UUID when it is empty, which is stable too: it is stored once,
	// in the transaction that commits the business rows.
	ID      string
	Topic   string
	Payload []byte
}

// Outbox reads and writes the idem_outbox and idem_consumed tables created
// by sqlstore.Store.Migrate.
type Outbox struct {
	db  *sql.DB
	d   sqlstore.Dialect
	now func() time.Time
}

// New returns an Outbox on db; now defaults to time.Now.
func New(db *sql.DB, d sqlstore.Dialect, now func() time.Time) *Outbox {
	if now == nil {
		now = time.Now
	}
	return &Outbox{db: db, d: d, now: now}
}

// Add writes e in tx (the business transaction, from ledger.Tx) and returns
// the event id.
func (o *Outbox) Add(ctx context.Context, tx *sql.Tx, e Event) (string, error) {
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	_, err := tx.ExecContext(ctx, o.d.Rebind(`INSERT INTO idem_outbox (event_id, topic, payload, created_at)
VALUES (?, ?, ?, ?)`), e.ID, e.Topic, e.Payload, o.now().UnixNano())
	if err != nil {
		return "", fmt.Errorf("outbox: add: %w", err)
	}
	return e.ID, nil
}

// Pending counts undelivered events.
func (o *Outbox) Pending(ctx context.Context) (int, error) {
	var n int
	err := o.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM idem_outbox WHERE delivered_at IS NULL`).Scan(&n)
	return n, err
}

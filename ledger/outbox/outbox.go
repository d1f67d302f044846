// Package outbox carries side effects beyond the database: events are written
// in the business transaction (so they exist exactly when the business rows
// do), a relay delivers them at least once, and a consumer helper dedupes by
// the stable event id so the downstream effect happens exactly once.
package outbox

import (
	"context"
	"database/sql"
	"errors"
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
	// Source names the outbox the event came from, as the transport reports
	// it (idemnats sets it from Publisher.Source); Add ignores it. Consume
	// dedupes on Source and ID together, so two outboxes whose ids collide
	// are both applied. Empty for a transport that names no source.
	Source string
}

// DefaultMaxPayload is the largest payload Add accepts unless WithMaxPayload
// says otherwise: NATS's default max_payload (1 MiB), less 8 KiB for the
// headers a message carries beside it (the event id, the topic, the source),
// which the server counts in the same limit.
const DefaultMaxPayload = 1<<20 - 8<<10

// Outbox reads and writes the idem_outbox, idem_consumed and idem_parked
// tables created by sqlstore.Store.Migrate.
type Outbox struct {
	db         *sql.DB
	d          sqlstore.Dialect
	now        func() time.Time
	maxPayload int
}

// Option tunes New.
type Option func(*Outbox)

// WithMaxPayload sets the largest payload Add accepts, in bytes; set it to
// what the broker accepts (less its headers). n <= 0 keeps
// DefaultMaxPayload.
func WithMaxPayload(n int) Option {
	return func(o *Outbox) {
		if n > 0 {
			o.maxPayload = n
		}
	}
}

// New returns an Outbox on db; now defaults to time.Now.
func New(db *sql.DB, d sqlstore.Dialect, now func() time.Time, opts ...Option) *Outbox {
	if now == nil {
		now = time.Now
	}
	o := &Outbox{db: db, d: d, now: now, maxPayload: DefaultMaxPayload}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// ErrPayloadTooLarge is matched (errors.Is) by the *PayloadTooLargeError
// that Add returns.
var ErrPayloadTooLarge = errors.New("outbox: event payload too large")

// PayloadTooLargeError reports an event Add refused because its payload is
// over the outbox's limit: the broker would refuse it on every relay pass.
type PayloadTooLargeError struct {
	EventID, Topic string
	Size, Limit    int
}

func (e *PayloadTooLargeError) Error() string {
	return fmt.Sprintf("outbox: event %.64q (topic %.64q): payload of %d bytes is over the limit of %d", e.EventID, e.Topic, e.Size, e.Limit)
}

// Unwrap returns ErrPayloadTooLarge.
func (e *PayloadTooLargeError) Unwrap() error { return ErrPayloadTooLarge }

// Add writes e in tx (the business transaction, from ledger.Tx) and returns
// the event id. A payload over the limit (DefaultMaxPayload, or
// WithMaxPayload) is refused with a *PayloadTooLargeError before anything
// is written: the caller's transaction then rolls back with the business
// rows, instead of committing an event no relay pass could ever deliver.
func (o *Outbox) Add(ctx context.Context, tx *sql.Tx, e Event) (string, error) {
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	if len(e.Payload) > o.maxPayload {
		return "", &PayloadTooLargeError{EventID: e.ID, Topic: e.Topic, Size: len(e.Payload), Limit: o.maxPayload}
	}
	_, err := tx.ExecContext(ctx, o.d.Rebind(`INSERT INTO idem_outbox (event_id, topic, payload, created_at)
VALUES (?, ?, ?, ?)`), e.ID, e.Topic, e.Payload, o.now().UnixNano())
	if err != nil {
		return "", fmt.Errorf("outbox: add: %w", err)
	}
	return e.ID, nil
}

// Pending counts the events the relay still has to deliver (not the parked
// ones).
func (o *Outbox) Pending(ctx context.Context) (int, error) {
	var n int
	err := o.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM idem_outbox WHERE delivered_at IS NULL AND parked_at IS NULL`).Scan(&n)
	return n, err
}

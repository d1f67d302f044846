// Package server holds the payments example's business logic: Payments
// implements the generated client.Handler (orders, charges and outbox events
// written in the ledger's transaction), Tokens maps a bearer token to its
// tenant, and an outbox relay feeds a deduplicating consumer. Routing,
// authentication, request decoding and the idempotency-key contract are the
// generated server's (client.NewServer with idemsrv.WithLedger and
// idemsrv.WithSecurity); nothing here names a route or wires the ledger.
package server

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/idemgen/idemgen/examples/payments/client"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// Config configures Payments.
type Config struct {
	// Store is a migrated ledger store (sqlitestore.Open or pgstore.Open);
	// the business tables live in the same database, so that business rows
	// commit in the ledger's transaction.
	Store *sqlstore.Store
	// Logf receives operational messages; default: discarded.
	Logf func(format string, args ...any)
	// Hooks inject faults for the end-to-end suite; the zero value is off.
	Hooks Hooks
}

// Payments is the business side of the payments API.
type Payments struct {
	db    *sqlstore.Store
	ob    *outbox.Outbox
	logf  func(format string, args ...any)
	hooks *hookState
}

var _ client.Handler = (*Payments)(nil)

// New creates the business tables.
func New(ctx context.Context, cfg Config) (*Payments, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	p := &Payments{db: cfg.Store, logf: cfg.Logf, hooks: newHookState(cfg.Hooks)}
	p.ob = outbox.New(p.db.DB(), p.db.Dialect(), nil)
	if err := p.migrate(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Payments) migrate(ctx context.Context) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, caller TEXT NOT NULL, item TEXT NOT NULL,
amount_cents BIGINT NOT NULL, currency TEXT NOT NULL, charge_id TEXT NOT NULL, created_at BIGINT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS charges (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, caller TEXT NOT NULL,
amount_cents BIGINT NOT NULL, created_at BIGINT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS notifications (event_id TEXT PRIMARY KEY, topic TEXT NOT NULL, subject TEXT NOT NULL)`,
	} {
		if _, err := p.db.DB().ExecContext(ctx, q); err != nil {
			return fmt.Errorf("payments: migrate: %w", err)
		}
	}
	return nil
}

// Run runs the outbox relay until ctx ends.
func (p *Payments) Run(ctx context.Context, relayEvery time.Duration) {
	relay := &outbox.Relay{Outbox: p.ob, Publish: p.notify}
	go relay.Run(ctx, relayEvery, func(err error) { p.logf("outbox relay: %v", err) })
}

// notify is the outbox's downstream: it records each event once in the
// notifications table, however often the relay delivers it.
func (p *Payments) notify(ctx context.Context, e outbox.Event) error {
	_, err := p.ob.Consume(ctx, "notifier", e, func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		return p.exec(ctx, tx, `INSERT INTO notifications (event_id, topic, subject) VALUES (?, ?, ?)`, e.ID, e.Topic, string(e.Payload))
	})
	return err
}

func (p *Payments) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) error {
	_, err := tx.ExecContext(ctx, p.db.Dialect().Rebind(q), args...)
	return err
}

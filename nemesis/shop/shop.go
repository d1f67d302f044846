// Package shop is the business side of the nemesis workload's API
// (api.Handler): orders, their conditional updates and refunds, each row
// stamped with the intent's business reference and each with an outbox
// event, all written in one transaction. The tables have no unique index on
// the reference on purpose: the checker counts the rows of each reference,
// and a unique index would hide a duplicate the ledger let through.
package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlstore"
	"github.com/idemgen/idemgen/nemesis/api"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// Schema is the business tables, on PostgreSQL.
var Schema = []string{
	`CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, caller TEXT NOT NULL, reference TEXT NOT NULL,
item TEXT NOT NULL, amount_cents BIGINT NOT NULL, version BIGINT NOT NULL, note TEXT NOT NULL, created_at BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS orders_reference ON orders (reference)`,
	`CREATE TABLE IF NOT EXISTS order_updates (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, reference TEXT NOT NULL,
from_version BIGINT NOT NULL, created_at BIGINT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS refunds (id TEXT PRIMARY KEY, caller TEXT NOT NULL, order_id TEXT NOT NULL,
reference TEXT NOT NULL, amount_cents BIGINT NOT NULL, created_at BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS refunds_reference ON refunds (reference)`,
}

// Shop implements api.Handler on a PostgreSQL ledger store.
type Shop struct {
	store *sqlstore.Store
	ob    *outbox.Outbox
	// bypass runs keyed operations in a transaction of their own, without
	// the ledger: the nemesis's proof that its checker sees duplicates.
	bypass bool
	// refundTimeout bounds a refund's transaction, so that a server paused
	// mid-refund cannot commit it long after the client's reconciler
	// looked it up and found nothing.
	refundTimeout time.Duration
	work          time.Duration
}

// Options tune a Shop.
type Options struct {
	// Bypass makes keyed operations commit on their own, without the
	// ledger (the server then runs with idemsrv.WithoutLedger): the
	// nemesis's proof that its checker sees duplicates.
	Bypass bool
	// Work is how long each write waits inside its transaction, standing
	// for the business's own work (a card network's call): it keeps
	// executions in flight when the nemesis strikes.
	Work time.Duration
}

var _ api.Handler = (*Shop)(nil)

// New migrates the business tables.
func New(ctx context.Context, store *sqlstore.Store, ob *outbox.Outbox, o Options) (*Shop, error) {
	for _, q := range Schema {
		if _, err := store.DB().ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("shop: migrate: %w", err)
		}
	}
	return &Shop{store: store, ob: ob, bypass: o.Bypass, work: o.Work, refundTimeout: 3 * time.Second}, nil
}

// Tokens maps a bearer token to its tenant: the token is the tenant's name.
type Tokens struct{}

// BearerAuth returns the token as the principal.
func (Tokens) BearerAuth(_ context.Context, _ string, c idemsrv.BearerCredential) (string, error) {
	if c.Token == "" || len(c.Token) > 64 {
		return "", errors.New("shop: no tenant")
	}
	return c.Token, nil
}

// CreateOrder writes the order at version 1 and its "order.created" event.
func (s *Shop) CreateOrder(ctx context.Context, in api.NewOrder, _ api.CreateOrderParams) (*api.CreateOrderResult, error) {
	if in.Reference == "" || in.AmountCents < 1 {
		return nil, problem(http.StatusBadRequest, "reference and amount_cents >= 1 are required")
	}
	o := api.Order{ID: "ord_" + uuid.NewString(), Reference: in.Reference, Item: in.Item, AmountCents: in.AmountCents, Version: 1}
	err := s.keyed(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO orders (id, caller, reference, item, amount_cents, version, note, created_at)
VALUES ($1, $2, $3, $4, $5, 1, '', $6)`, o.ID, idemsrv.Principal(ctx), o.Reference, o.Item, o.AmountCents, time.Now().UnixNano())
		if err == nil {
			_, err = s.ob.Add(ctx, tx, outbox.Event{ID: "evt_" + o.ID, Topic: "order.created", Payload: []byte(o.Reference)})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &api.CreateOrderResult{Body: o, ETag: ETag(1)}, nil
}

// UpdateOrder replaces the note when If-Match names the current version,
// recording the version it replaced: two updates from one version would
// be a lost update, which the checker looks for.
func (s *Shop) UpdateOrder(ctx context.Context, in api.OrderUpdate, p api.UpdateOrderParams) (*api.UpdateOrderResult, error) {
	var o api.Order
	err := s.keyed(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id, reference, item, amount_cents, version FROM orders WHERE id = $1 AND caller = $2 FOR UPDATE`,
			p.OrderID, idemsrv.Principal(ctx)).Scan(&o.ID, &o.Reference, &o.Item, &o.AmountCents, &o.Version)
		if errors.Is(err, sql.ErrNoRows) {
			return problem(http.StatusNotFound, "no such order")
		}
		if err != nil {
			return err
		}
		if ETag(o.Version) != p.IfMatch {
			return idemsrv.PreconditionFailed(&api.Problem{Detail: ptr("the order changed since it was read")})
		}
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET version = version + 1, note = $1 WHERE id = $2`, in.Note, o.ID); err != nil {
			return err
		}
		id := "upd_" + uuid.NewString()
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_updates (id, order_id, reference, from_version, created_at) VALUES ($1, $2, $3, $4, $5)`,
			id, o.ID, in.Reference, o.Version, time.Now().UnixNano()); err != nil {
			return err
		}
		_, err = s.ob.Add(ctx, tx, outbox.Event{ID: "evt_" + id, Topic: "order.updated", Payload: []byte(in.Reference)})
		return err
	})
	if err != nil {
		return nil, err
	}
	o.Version++
	o.Note = in.Note
	return &api.UpdateOrderResult{Body: o, ETag: ETag(o.Version)}, nil
}

// keyed runs fn in the ledger's transaction; with bypass, in one of its
// own that commits at once (what a server without the ledger does).
func (s *Shop) keyed(ctx context.Context, fn func(*sql.Tx) error) error {
	if tx := ledger.Tx(ctx); tx != nil {
		if err := fn(tx); err != nil {
			return err
		}
		return s.doWork(ctx)
	}
	if !s.bypass {
		return errors.New("shop: keyed operation outside the ledger")
	}
	tx, err := s.store.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err == nil {
		err = s.doWork(ctx)
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// doWork waits Work, or until ctx ends (the ledger's lease ran out).
func (s *Shop) doWork(ctx context.Context) error {
	if s.work <= 0 {
		return nil
	}
	select {
	case <-time.After(s.work):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ETag is the entity tag of an order's version.
func ETag(version int64) string { return `"v` + strconv.FormatInt(version, 10) + `"` }

// GetOrder reads one of the caller's orders with its version.
func (s *Shop) GetOrder(ctx context.Context, p api.GetOrderParams) (*api.GetOrderResult, error) {
	var o api.Order
	err := s.store.DB().QueryRowContext(ctx, `SELECT id, reference, item, amount_cents, version, note FROM orders WHERE id = $1 AND caller = $2`,
		p.OrderID, idemsrv.Principal(ctx)).Scan(&o.ID, &o.Reference, &o.Item, &o.AmountCents, &o.Version, &o.Note)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, problem(http.StatusNotFound, "no such order")
	}
	if err != nil {
		return nil, err
	}
	return &api.GetOrderResult{Body: o, ETag: ETag(o.Version)}, nil
}

func ptr[T any](v T) *T { return &v }

// problem is a declared error answer with an RFC 9457 body.
func problem(status int, detail string) error {
	title, code := http.StatusText(status), int64(status)
	return &idemrt.StatusError{StatusCode: status, Model: &api.Problem{Title: &title, Status: &code, Detail: &detail}}
}

// isConnectionLoss reports an error after which a commit's outcome is
// unknown: the connection to the database broke (a failover, a cut link).
func isConnectionLoss(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection", "EOF", "broken pipe", "conn closed", "timeout", "terminating"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

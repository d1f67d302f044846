package server

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/examples/payments/client"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// errNoTx is a keyed operation running without the ledger's transaction:
// a wiring mistake, answered 500 so that the key is released.
var errNoTx = errors.New("payments: keyed operation ran outside the ledger (no ledger.Tx)")

// CreateOrder writes the order, its charge and an "order.created" event in
// the ledger's transaction: all three exist exactly when the key completed.
func (p *Payments) CreateOrder(ctx context.Context, in client.NewOrder, _ client.CreateOrderParams) (*client.Order, error) {
	if in.Item == "" || in.AmountCents < 1 || in.Currency == "" {
		return nil, problem(http.StatusBadRequest, "item, amount_cents >= 1 and currency are required")
	}
	tx, err := keyedTx(ctx)
	if err != nil {
		return nil, err
	}
	caller := tenantOf(ctx)
	o := client.Order{ID: "ord_" + uuid.NewString(), Item: in.Item, AmountCents: in.AmountCents, Currency: in.Currency, ChargeID: "ch_" + uuid.NewString()}
	now := time.Now().UnixNano()
	err = p.exec(ctx, tx, `INSERT INTO orders (id, caller, item, amount_cents, currency, charge_id, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)`, o.ID, caller, o.Item, o.AmountCents, o.Currency, o.ChargeID, now)
	if err == nil {
		err = p.exec(ctx, tx, `INSERT INTO charges (id, order_id, caller, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)`,
			o.ChargeID, o.ID, caller, o.AmountCents, now)
	}
	if err == nil {
		_, err = p.ob.Add(ctx, tx, outbox.Event{ID: "evt_" + o.ID, Topic: "order.created", Payload: []byte(o.ID)})
	}
	if err == nil {
		err = p.hooks.afterCreateOrder(ctx)
	}
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// CreatePayment charges an existing order of the caller again.
func (p *Payments) CreatePayment(ctx context.Context, in client.NewPayment, params client.CreatePaymentParams) (*client.Payment, error) {
	if in.AmountCents < 1 {
		return nil, problem(http.StatusBadRequest, "amount_cents >= 1 is required")
	}
	tx, err := keyedTx(ctx)
	if err != nil {
		return nil, err
	}
	caller := tenantOf(ctx)
	var n int
	err = tx.QueryRowContext(ctx, p.db.Dialect().Rebind(`SELECT COUNT(*) FROM orders WHERE id = ? AND caller = ?`), params.OrderID, caller).Scan(&n)
	if err == nil && n == 0 {
		return nil, problem(http.StatusNotFound, "no such order")
	}
	pay := client.Payment{ID: "ch_" + uuid.NewString(), OrderID: params.OrderID, AmountCents: in.AmountCents}
	if err == nil {
		err = p.exec(ctx, tx, `INSERT INTO charges (id, order_id, caller, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)`,
			pay.ID, pay.OrderID, caller, pay.AmountCents, time.Now().UnixNano())
	}
	if err == nil {
		_, err = p.ob.Add(ctx, tx, outbox.Event{ID: "evt_" + pay.ID, Topic: "payment.created", Payload: []byte(pay.ID)})
	}
	if err != nil {
		return nil, err
	}
	return &pay, nil
}

// GetOrder reads one of the caller's orders; another caller's order is 404.
func (p *Payments) GetOrder(ctx context.Context, params client.GetOrderParams) (*client.Order, error) {
	var o client.Order
	err := p.db.Reader().QueryRowContext(ctx, p.db.Dialect().Rebind(`SELECT id, item, amount_cents, currency, charge_id
FROM orders WHERE id = ? AND caller = ?`), params.OrderID, tenantOf(ctx)).Scan(&o.ID, &o.Item, &o.AmountCents, &o.Currency, &o.ChargeID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, problem(http.StatusNotFound, "no such order")
	}
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// keyedTx is the ledger's transaction of a keyed operation: the business
// rows commit with the key's completion or not at all.
func keyedTx(ctx context.Context) (*sql.Tx, error) {
	if tx := ledger.Tx(ctx); tx != nil {
		return tx, nil
	}
	return nil, errNoTx
}

// problem is a declared error answer with an RFC 9457 body.
func problem(status int, detail string) error {
	title, code := http.StatusText(status), int64(status)
	return &idemrt.StatusError{StatusCode: status, Model: &client.Problem{Title: &title, Status: &code, Detail: &detail}}
}

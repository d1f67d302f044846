package shop

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/nemesis/api"
	idemsrv "github.com/idemgen/idemgen/server"
)

// CreateRefund is unsafe (no key): it runs in a transaction of its own,
// bounded by refundTimeout. When the COMMIT's connection breaks, its
// outcome is unknown: the refund is read back by its reference (on the
// promoted primary, after a failover) before answering, so that the client
// is never told "failed" about a refund that committed.
func (s *Shop) CreateRefund(ctx context.Context, in api.NewRefund) (*api.Refund, error) {
	if in.Reference == "" || in.AmountCents < 1 {
		return nil, problem(http.StatusBadRequest, "reference and amount_cents >= 1 are required")
	}
	ctx, cancel := context.WithTimeout(ctx, s.refundTimeout)
	defer cancel()
	r := api.Refund{ID: "ref_" + uuid.NewString(), OrderID: in.OrderID, Reference: in.Reference, AmountCents: in.AmountCents}
	tx, err := s.store.DB().BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO refunds (id, caller, order_id, reference, amount_cents, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		r.ID, idemsrv.Principal(ctx), r.OrderID, r.Reference, r.AmountCents, time.Now().UnixNano())
	if err == nil {
		_, err = s.ob.Add(ctx, tx, outbox.Event{ID: "evt_" + r.ID, Topic: "refund.created", Payload: []byte(r.Reference)})
	}
	if err == nil {
		err = s.doWork(ctx)
	}
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		if !isConnectionLoss(err) {
			return nil, err
		}
		return s.readBack(idemsrv.Principal(ctx), r.ID, err)
	}
	return &r, nil
}

// readBack settles a refund whose COMMIT lost its connection: found, it
// committed; absent on a primary that answers, it did not. Without an
// answer within the bound, the server cuts the connection and the refund stays
// unknown to the client (the connection is cut, which a balancer answers
// 502), and the client's reconciler looks it up later.
func (s *Shop) readBack(caller, id string, commitErr error) (*api.Refund, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	for {
		var r api.Refund
		err := s.store.DB().QueryRowContext(ctx, `SELECT id, order_id, reference, amount_cents FROM refunds WHERE id = $1 AND caller = $2`,
			id, caller).Scan(&r.ID, &r.OrderID, &r.Reference, &r.AmountCents)
		if err == nil {
			return &r, nil
		}
		if errors.Is(err, sql.ErrNoRows) {
			return nil, commitErr
		}
		select {
		case <-ctx.Done():
			panic(http.ErrAbortHandler)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// GetRefundByReference is the x-lookup of createRefund.
func (s *Shop) GetRefundByReference(ctx context.Context, p api.GetRefundByReferenceParams) (*api.Refund, error) {
	var r api.Refund
	err := s.store.DB().QueryRowContext(ctx, `SELECT id, order_id, reference, amount_cents FROM refunds WHERE reference = $1 AND caller = $2 ORDER BY id LIMIT 1`,
		p.Reference, idemsrv.Principal(ctx)).Scan(&r.ID, &r.OrderID, &r.Reference, &r.AmountCents)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, problem(http.StatusNotFound, "no refund has this reference")
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

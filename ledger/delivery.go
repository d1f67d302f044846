package ledger

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"
)

// Delivered is what Deliver did with one delivery.
type Delivered int

const (
	// Applied: fn ran and its writes committed together with the delivery
	// id's record.
	Applied Delivered = iota + 1
	// Duplicate: the id was already recorded; fn did not run.
	Duplicate
	// InFlight: another execution holds a live lease on the id (the sender
	// delivered it twice at once); fn did not run and the sender should try
	// again later.
	InFlight
)

// ErrDeliveryStore wraps the store's failures in Deliver (reserving,
// beginning, recording or committing): nothing was applied, or, for a
// failed commit, the outcome is unknown and a redelivery settles it.
var ErrDeliveryStore = errors.New("ledger: the store failed to record a delivery")

// ErrDeliveryID is returned by Deliver for an identity no store can keep
// (empty, longer than 255 bytes, not UTF-8, or holding a NUL).
var ErrDeliveryID = errors.New("ledger: invalid delivery identity")

// deliveryFingerprint is the fingerprint of every delivery row: a delivery
// is identified by its id alone. Senders may change bytes of a redelivered
// event (Stripe's pending_webhooks count), so a body fingerprint would
// refuse legitimate redeliveries.
const deliveryFingerprint = "delivery"

// Deliver runs fn at most once per id: it reserves id, runs fn with a
// transaction that Tx(ctx) returns, and records id in that same transaction,
// so fn's writes and the record commit together or not at all. When fn
// returns an error (or panics) the transaction rolls back, the reservation
// is released and the error is returned: a redelivery runs fn afresh. The
// record is kept for Config.TTL, which must outlast the sender's retry
// window; Lease bounds fn's run.
//
// Deliver is the inbound counterpart of Handle, for webhook receivers: the
// caller has already authenticated the delivery, and id names it
// (ID.Caller the receiving endpoint, ID.Operation the scheme, ID.Key its
// delivery id).
func (l *Ledger) Deliver(ctx context.Context, id ID, fn func(ctx context.Context) error) (Delivered, error) {
	return l.DeliverAny(ctx, []ID{id}, fn)
}

// DeliverAny is Deliver for a delivery known by several identities (a
// GitHub delivery: its delivery id, which is not signed, and the hash of
// its signed body). fn runs unless one of ids is recorded (Duplicate) or
// held by another execution (InFlight); when it runs, every one of ids is
// recorded in fn's transaction. The ids are reserved in order and a
// refusal releases the ones already reserved, so a delivery refused as a
// duplicate of one identity leaves no record under the others.
func (l *Ledger) DeliverAny(ctx context.Context, ids []ID, fn func(ctx context.Context) error) (Delivered, error) {
	if len(ids) == 0 {
		return 0, fmt.Errorf("%w: no identity", ErrDeliveryID)
	}
	for _, id := range ids {
		if err := checkDeliveryID(id); err != nil {
			return 0, err
		}
	}
	now := l.cfg.Now()
	if l.anyCompleted(ctx, ids, now) {
		// A plain read settles most repeats without a write transaction.
		return Duplicate, nil
	}
	owner := l.cfg.Owner()
	if done, err := l.reserveDeliveries(ctx, ids, owner, now); done != 0 || err != nil {
		return done, err
	}
	if err := l.applyDelivery(ctx, ids, owner, fn); err != nil {
		return 0, err
	}
	return Applied, nil
}

// anyCompleted reports whether one of ids is recorded and unexpired; a
// store error is left for Reserve to report.
func (l *Ledger) anyCompleted(ctx context.Context, ids []ID, now time.Time) bool {
	for _, id := range ids {
		if rec, ok, err := l.cfg.Store.Get(ctx, id); err == nil && ok && now.Before(rec.ExpiresAt) && rec.State == StateCompleted {
			return true
		}
	}
	return false
}

// reserveDeliveries reserves every one of ids for owner and returns 0, or
// releases those it reserved and returns why it stopped.
func (l *Ledger) reserveDeliveries(ctx context.Context, ids []ID, owner string, now time.Time) (Delivered, error) {
	for i, id := range ids {
		dec, err := l.cfg.Store.Reserve(ctx, Reservation{
			ID: id, Fingerprint: deliveryFingerprint, Owner: owner, Now: now, Lease: l.cfg.Lease, TTL: l.cfg.TTL,
		})
		var done Delivered
		switch {
		case err != nil:
			err = fmt.Errorf("%w: %w", ErrDeliveryStore, err)
		case dec.Outcome == Replay:
			done = Duplicate
		case dec.Outcome == Busy:
			done = InFlight
		case dec.Outcome == Mismatch:
			// Only a row written by Handle under the same identity can differ.
			err = fmt.Errorf("%w: %s/%s/%s is a request key, not a delivery", ErrDeliveryID, id.Caller, id.Operation, id.Key)
		default:
			continue
		}
		l.releaseDeliveries(ctx, ids[:i], owner)
		return done, err
	}
	return 0, nil
}

// applyDelivery runs fn in the business transaction and commits the ids'
// completion with it. Like execute, it is detached from the request's
// cancellation and bounded by the lease instead.
func (l *Ledger) applyDelivery(ctx context.Context, ids []ID, owner string, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.Lease)
	defer cancel()
	tx, err := l.cfg.Store.Begin(ctx)
	if err != nil {
		l.releaseDeliveries(ctx, ids, owner)
		return fmt.Errorf("%w: %w", ErrDeliveryStore, err)
	}
	if err := runDelivery(withExecution(ctx, &execution{tx: tx, id: ids[0]}), fn); err != nil {
		tx.Rollback()
		l.releaseDeliveries(ctx, ids, owner)
		return err
	}
	for _, id := range ids {
		if err := l.cfg.Store.Complete(ctx, tx, id, owner, Response{Status: 204}); err != nil {
			tx.Rollback()
			l.releaseDeliveries(ctx, ids, owner)
			return fmt.Errorf("%w: %w", ErrDeliveryStore, err)
		}
	}
	if err := tx.Commit(); err != nil {
		// Release is guarded by state and owner: it never deletes a row
		// that did commit.
		l.releaseDeliveries(ctx, ids, owner)
		return fmt.Errorf("%w: %w", ErrDeliveryStore, errCommit{err})
	}
	return nil
}

// runDelivery calls fn and turns a panic into a *PanicError, so the
// transaction rolls back and the id is free for the redelivery.
func runDelivery(ctx context.Context, fn func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return fn(ctx)
}

func (l *Ledger) releaseDeliveries(ctx context.Context, ids []ID, owner string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	for _, id := range ids {
		// On failure the lease expires and the sweeper finds the row; until
		// then a redelivery is answered InFlight and retried by the sender.
		_ = l.cfg.Store.Release(rctx, id, owner)
	}
}

// checkDeliveryID applies the key rules of Handle to every part of id.
func checkDeliveryID(id ID) error {
	for _, s := range []string{id.Caller, id.Operation, id.Key} {
		if s == "" || len(s) > MaxKeyLen || !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%w: %q", ErrDeliveryID, s)
		}
	}
	return nil
}

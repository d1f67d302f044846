package ledger

import (
	"context"
	"database/sql"
)

type ctxKey struct{}

type execution struct {
	tx *sql.Tx
	id ID
}

// Tx returns the transaction the ledger opened for this request, or nil when
// the handler does not run under the middleware. The handler writes its
// business rows and its outbox rows in it and must not commit or roll it
// back: the ledger commits it together with the key's completion when the
// handler answers below 500, and rolls it back otherwise.
func Tx(ctx context.Context) *sql.Tx {
	e, _ := ctx.Value(ctxKey{}).(*execution)
	if e == nil {
		return nil
	}
	return e.tx
}

// KeyOf returns the ledger identity (caller, operation, key) of the request
// being executed; Key is "" for an optional-key request sent without one.
// Handlers use it to derive stable downstream ids (an outbox event id, say).
func KeyOf(ctx context.Context) (ID, bool) {
	e, _ := ctx.Value(ctxKey{}).(*execution)
	if e == nil {
		return ID{}, false
	}
	return e.id, true
}

// execContext carries its execution itself: one allocation per request
// where context.WithValue and the execution it points to would be two.
type execContext struct {
	context.Context
	e execution
}

// Value answers ctxKey with the execution, as context.WithValue would.
func (c *execContext) Value(key any) any {
	if key == (ctxKey{}) {
		return &c.e
	}
	return c.Context.Value(key)
}

func withExecution(ctx context.Context, e *execution) context.Context {
	return &execContext{Context: ctx, e: *e}
}

// WithTx returns ctx carrying tx as Tx(ctx) returns it, for running a
// handler written for the middleware without it: in the handler's unit
// tests, or in a batch job that owns the transaction.
func WithTx(ctx context.Context, tx *sql.Tx) context.Context {
	return withExecution(ctx, &execution{tx: tx})
}

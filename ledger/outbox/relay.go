package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Relay delivers pending events in commit order, at least once: an event is
// marked delivered only after Publish returned nil, so a crash between the
// two delivers it again (and the consumer's dedupe absorbs the repeat).
type Relay struct {
	Outbox *Outbox
	// Publish delivers one event; an error stops the batch (order is kept)
	// and the event is retried on the next pass.
	Publish func(ctx context.Context, e Event) error
	// Batch bounds the events per pass; default 100.
	Batch int
}

type pending struct {
	seq int64
	ev  Event
}

// Once runs one pass and returns how many events it delivered.
//
// On a dialect with row locks (PostgreSQL) the pass claims its batch with
// FOR UPDATE SKIP LOCKED inside a transaction, so several relays can run side
// by side. SQLite has one connection and one writer: the pass reads, publishes
// and marks without holding a transaction, so a consumer writing to the same
// database can run meanwhile.
func (r *Relay) Once(ctx context.Context) (int, error) {
	o := r.Outbox
	if o.d.LockSkip == "" {
		return r.pass(ctx, o.db, o.db)
	}
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n, err := r.pass(ctx, tx, tx)
	if cerr := tx.Commit(); err == nil {
		err = cerr
	}
	return n, err
}

type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (r *Relay) pass(ctx context.Context, q, x execQuerier) (int, error) {
	batch, err := r.claim(ctx, q)
	if err != nil {
		return 0, err
	}
	o := r.Outbox
	for i, p := range batch {
		if perr := r.Publish(ctx, p.ev); perr != nil {
			_, err := x.ExecContext(ctx, o.d.Rebind(`UPDATE idem_outbox SET attempts = attempts + 1 WHERE seq = ?`), p.seq)
			if err != nil {
				return i, err
			}
			return i, fmt.Errorf("outbox: publish %s: %w", p.ev.ID, perr)
		}
		_, err := x.ExecContext(ctx, o.d.Rebind(`UPDATE idem_outbox SET attempts = attempts + 1, delivered_at = ? WHERE seq = ?`),
			o.now().UnixNano(), p.seq)
		if err != nil {
			return i, fmt.Errorf("outbox: mark delivered: %w", err)
		}
	}
	return len(batch), nil
}

func (r *Relay) claim(ctx context.Context, q execQuerier) ([]pending, error) {
	limit := r.Batch
	if limit <= 0 {
		limit = 100
	}
	o := r.Outbox
	rows, err := q.QueryContext(ctx, o.d.Rebind(`SELECT seq, event_id, topic, payload FROM idem_outbox
WHERE delivered_at IS NULL ORDER BY seq LIMIT ?`+o.d.LockSkip), limit)
	if err != nil {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	defer rows.Close()
	var out []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.seq, &p.ev.ID, &p.ev.Topic, &p.ev.Payload); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Run calls Once every interval until ctx ends; onErr receives failures.
func (r *Relay) Run(ctx context.Context, interval time.Duration, onErr func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := r.Once(ctx); err != nil && onErr != nil && ctx.Err() == nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

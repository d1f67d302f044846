package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Relay delivers committed events in the order outbox.Add wrote them (the
// seq column), at least once: an event is marked delivered only after
// Publish returned nil, so a crash between the two delivers it again (and the
// consumer's dedupe absorbs the repeat). An event whose transaction commits
// after a later-written one was delivered goes out after it; two events of
// one aggregate keep their order when the business transactions that write
// them serialise on the aggregate (lock its row before outbox.Add).
type Relay struct {
	Outbox *Outbox
	// Publish delivers one event. An error stops the batch (order is kept)
	// and the event is retried on the next pass, unless it matches
	// ErrPermanent (see Permanent): the relay then parks the event and goes
	// on with the next one. See Once.
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
// An event whose publish fails permanently (ErrPermanent: a payload the
// broker refuses, a topic that is no valid subject) is parked: it stays in
// idem_outbox with parked_at and the error set, is never claimed again, and
// Backlog and `idemgen ledger` list it until Unpark returns it. The pass goes
// on with the events after it, those of the same aggregate included: one
// event the broker can never take does not stop an aggregate, or the whole
// outbox, for ever, but when it is unparked (after the cause is fixed) it is
// delivered after the aggregate's later events. Once then returns, beside
// the count, a *ParkedError (ErrParked) for each event it parked.
//
// On PostgreSQL the pass runs in a transaction that first takes an advisory
// lock (pg_try_advisory_xact_lock), so several relays can run side by side
// and exactly one pass at a time delivers: a relay that finds the lock taken
// delivers nothing and returns 0. Were two passes to claim disjoint batches,
// the second could publish an aggregate's later events before the first
// published its earlier ones; one pass at a time keeps seq order across
// relays, so extra relays give failover, not throughput. SQLite has one
// connection and one writer: the pass reads, publishes and marks without
// holding a transaction, so a consumer writing to the same database can run
// meanwhile; run one relay there.
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
	var mine bool
	if err := tx.QueryRowContext(ctx, relayLock).Scan(&mine); err != nil {
		return 0, fmt.Errorf("outbox: relay lock: %w", err)
	}
	if !mine {
		return 0, nil
	}
	n, err := r.pass(ctx, tx, tx)
	if cerr := tx.Commit(); err == nil {
		err = cerr
	}
	return n, err
}

// relayLock takes the transaction-scoped advisory lock that makes relay
// passes on one PostgreSQL database run one at a time; the key is an
// arbitrary constant that names the outbox relay.
const relayLock = `SELECT pg_try_advisory_xact_lock(7243950102)`

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
	delivered := 0
	var parked []error
	for _, p := range batch {
		perr := r.Publish(ctx, p.ev)
		if perr == nil {
			_, err := x.ExecContext(ctx, o.d.Rebind(`UPDATE idem_outbox SET attempts = attempts + 1, delivered_at = ? WHERE seq = ?`),
				o.now().UnixNano(), p.seq)
			if err != nil {
				return delivered, fmt.Errorf("outbox: mark delivered: %w", err)
			}
			delivered++
			continue
		}
		if err := r.failed(ctx, x, p.seq, perr); err != nil {
			return delivered, err
		}
		if !errors.Is(perr, ErrPermanent) {
			return delivered, errors.Join(append(parked, fmt.Errorf("outbox: publish %s: %w", p.ev.ID, perr))...)
		}
		parked = append(parked, &ParkedError{EventID: p.ev.ID, Err: perr})
	}
	return delivered, errors.Join(parked...)
}

// failed counts a failed publish and keeps its error; a permanent one also
// parks the event, so that no pass claims it again.
func (r *Relay) failed(ctx context.Context, x execQuerier, seq int64, perr error) error {
	o := r.Outbox
	var parkedAt any // NULL: still pending
	if errors.Is(perr, ErrPermanent) {
		parkedAt = o.now().UnixNano()
	}
	_, err := x.ExecContext(ctx, o.d.Rebind(`UPDATE idem_outbox SET attempts = attempts + 1, last_error = ?, parked_at = ? WHERE seq = ?`),
		bounded(perr.Error(), maxLastError), parkedAt, seq)
	if err != nil {
		return fmt.Errorf("outbox: record the failed publish: %w", err)
	}
	return nil
}

func (r *Relay) claim(ctx context.Context, q execQuerier) ([]pending, error) {
	limit := r.Batch
	if limit <= 0 {
		limit = 100
	}
	o := r.Outbox
	rows, err := q.QueryContext(ctx, o.d.Rebind(`SELECT seq, event_id, topic, payload FROM idem_outbox
WHERE delivered_at IS NULL AND parked_at IS NULL ORDER BY seq LIMIT ?`+o.d.LockSkip), limit)
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

package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// Undelivered is an event the relay has not delivered, without its payload.
type Undelivered struct {
	// Seq is the commit order the relay delivers in.
	Seq       int64
	ID        string
	Topic     string
	CreatedAt time.Time
	// Attempts counts failed publishes; 0 means not tried yet.
	Attempts int
	// LastError is the last publish error (at most 1 KiB), "" before any.
	LastError string
	// ParkedAt is when the relay parked the event; zero while it is pending.
	ParkedAt time.Time
}

// Backlog is what the relay still has to deliver, and what it parked.
type Backlog struct {
	// Undelivered counts the pending events (the relay tries them); Failing
	// those whose publish failed at least once.
	Undelivered, Failing int64
	// Oldest lists up to the requested number of pending events, oldest
	// first: the order the relay delivers in.
	Oldest []Undelivered
	// Parked counts the events parked after a permanent publish failure;
	// ParkedEvents lists up to the requested number of them in seq order.
	// Unpark returns one to the relay.
	Parked       int64
	ParkedEvents []Undelivered
}

// Backlog reads the pending and the parked events (counts, and the oldest
// limit of each). It only reads, so it can run on a read-only handle, and
// it reads a database that an earlier version created and nothing migrated
// since (no parked_at column: nothing is parked there).
func (o *Outbox) Backlog(ctx context.Context, limit int) (Backlog, error) {
	var b Backlog
	cols, pending, parked := `last_error, parked_at`, `delivered_at IS NULL AND parked_at IS NULL`, `delivered_at IS NULL AND parked_at IS NOT NULL`
	if !sqlstore.HasColumn(ctx, o.db, "idem_outbox", "parked_at") {
		cols, pending, parked = `'', NULL`, `delivered_at IS NULL`, `1 = 0`
	}
	err := o.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE WHEN `+pending+` THEN 1 ELSE 0 END), 0),
COALESCE(SUM(CASE WHEN `+pending+` AND attempts > 0 THEN 1 ELSE 0 END), 0),
COALESCE(SUM(CASE WHEN `+parked+` THEN 1 ELSE 0 END), 0)
FROM idem_outbox WHERE delivered_at IS NULL`).Scan(&b.Undelivered, &b.Failing, &b.Parked)
	if err != nil {
		return b, fmt.Errorf("outbox: backlog: %w", err)
	}
	if b.Oldest, err = o.undelivered(ctx, cols, pending, limit); err != nil {
		return b, err
	}
	b.ParkedEvents, err = o.undelivered(ctx, cols, parked, limit)
	return b, err
}

func (o *Outbox) undelivered(ctx context.Context, cols, where string, limit int) ([]Undelivered, error) {
	rows, err := o.db.QueryContext(ctx, o.d.Rebind(`SELECT seq, event_id, topic, created_at, attempts, `+cols+`
FROM idem_outbox WHERE `+where+` ORDER BY seq LIMIT ?`), limit)
	if err != nil {
		return nil, fmt.Errorf("outbox: backlog: %w", err)
	}
	defer rows.Close()
	var out []Undelivered
	for rows.Next() {
		var u Undelivered
		var created int64
		var parkedAt *int64
		if err := rows.Scan(&u.Seq, &u.ID, &u.Topic, &created, &u.Attempts, &u.LastError, &parkedAt); err != nil {
			return nil, fmt.Errorf("outbox: backlog: %w", err)
		}
		u.CreatedAt = time.Unix(0, created)
		if parkedAt != nil {
			u.ParkedAt = time.Unix(0, *parkedAt)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// Unpark returns the parked event with this id to the relay: it is pending
// again, and as it keeps its seq, the next pass delivers it first. Fix
// what made the publish fail (raise the broker's max_payload, say) before;
// an event that fails permanently again is parked again. An id that is not
// parked gives ErrNotParked.
func (o *Outbox) Unpark(ctx context.Context, eventID string) error {
	res, err := o.db.ExecContext(ctx, o.d.Rebind(`UPDATE idem_outbox SET parked_at = NULL
WHERE event_id = ? AND delivered_at IS NULL AND parked_at IS NOT NULL`), eventID)
	if err != nil {
		return fmt.Errorf("outbox: unpark: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("%w: %.64q", ErrNotParked, eventID)
	}
	return nil
}

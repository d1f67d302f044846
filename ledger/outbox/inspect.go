package outbox

import (
	"context"
	"fmt"
	"time"
)

// Undelivered is an event the relay has not delivered yet, without its
// payload.
type Undelivered struct {
	// Seq is the commit order the relay delivers in.
	Seq       int64
	ID        string
	Topic     string
	CreatedAt time.Time
	// Attempts counts failed publishes; 0 means not tried yet.
	Attempts int
}

// Backlog is what the relay still has to deliver.
type Backlog struct {
	// Undelivered counts all undelivered events; Failing those whose
	// publish failed at least once.
	Undelivered, Failing int64
	// Oldest lists up to the requested number of them, oldest first: the
	// order the relay delivers in.
	Oldest []Undelivered
}

// Backlog reads the undelivered events (counts, and the oldest limit of
// them). It only reads, so it can run on a read-only handle.
func (o *Outbox) Backlog(ctx context.Context, limit int) (Backlog, error) {
	var b Backlog
	err := o.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END), 0)
FROM idem_outbox WHERE delivered_at IS NULL`).Scan(&b.Undelivered, &b.Failing)
	if err != nil {
		return b, fmt.Errorf("outbox: backlog: %w", err)
	}
	rows, err := o.db.QueryContext(ctx, o.d.Rebind(`SELECT seq, event_id, topic, created_at, attempts FROM idem_outbox
WHERE delivered_at IS NULL ORDER BY seq LIMIT ?`), limit)
	if err != nil {
		return b, fmt.Errorf("outbox: backlog: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u Undelivered
		var created int64
		if err := rows.Scan(&u.Seq, &u.ID, &u.Topic, &created, &u.Attempts); err != nil {
			return b, fmt.Errorf("outbox: backlog: %w", err)
		}
		u.CreatedAt = time.Unix(0, created)
		b.Oldest = append(b.Oldest, u)
	}
	return b, rows.Err()
}

package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// maxParkedPayload bounds the payload Park stores (the first bytes of a
// larger one are kept, for reading; RetryParked refuses it).
const maxParkedPayload = 1 << 20

// ErrPayloadCut is returned by RetryParked for an event whose payload was
// larger than Park stores: it cannot be applied from the parked row.
var ErrPayloadCut = errors.New("outbox: parked payload was cut; republish the event")

// ParkedEvent is an event a consumer gave up on (see Park).
type ParkedEvent struct {
	Consumer string
	// Event has the id, topic and source; Payload is nil in Parked's list.
	Event Event
	// PayloadBytes is the payload's full size.
	PayloadBytes int
	// Deliveries is how many times the event was delivered and failed.
	Deliveries int
	// LastError is the last failure (at most 1 KiB).
	LastError string
	ParkedAt  time.Time
}

// Park records, in a transaction of its own, that consumer gave up on e
// after deliveries failed deliveries, the last with cause; the payload is
// kept up to 1 MiB. The transport then stops redelivering it (idemnats
// terminates the message), so the events after it flow. Parking the same
// event again updates the row. Parked lists the rows, `idemgen ledger`
// prints them, and RetryParked applies one.
func (o *Outbox) Park(ctx context.Context, consumer string, e Event, deliveries int, cause error) error {
	payload := e.Payload
	if len(payload) > maxParkedPayload {
		payload = payload[:maxParkedPayload]
	}
	msg := ""
	if cause != nil {
		msg = bounded(cause.Error(), maxLastError)
	}
	_, err := o.db.ExecContext(ctx, o.d.Rebind(`INSERT INTO idem_parked
(consumer, source, event_id, topic, payload, payload_bytes, deliveries, last_error, parked_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (consumer, source, event_id) DO UPDATE SET
topic = excluded.topic, payload = excluded.payload, payload_bytes = excluded.payload_bytes,
deliveries = excluded.deliveries, last_error = excluded.last_error, parked_at = excluded.parked_at`),
		consumer, e.Source, e.ID, e.Topic, payload, len(e.Payload), deliveries, msg, o.now().UnixNano())
	if err != nil {
		return fmt.Errorf("outbox: park %.64q: %w", e.ID, err)
	}
	return nil
}

// Parked counts the events consumers parked and lists up to limit of them,
// oldest first, without payloads. It only reads; on a database that no
// version with idem_parked migrated it reports none.
func (o *Outbox) Parked(ctx context.Context, limit int) (int64, []ParkedEvent, error) {
	if !sqlstore.HasColumn(ctx, o.db, "idem_parked", "event_id") {
		return 0, nil, nil
	}
	var n int64
	if err := o.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM idem_parked`).Scan(&n); err != nil {
		return 0, nil, fmt.Errorf("outbox: parked: %w", err)
	}
	rows, err := o.db.QueryContext(ctx, o.d.Rebind(`SELECT consumer, source, event_id, topic, payload_bytes, deliveries, last_error, parked_at
FROM idem_parked ORDER BY parked_at, consumer, source, event_id LIMIT ?`), limit)
	if err != nil {
		return 0, nil, fmt.Errorf("outbox: parked: %w", err)
	}
	defer rows.Close()
	var out []ParkedEvent
	for rows.Next() {
		var p ParkedEvent
		var at int64
		err := rows.Scan(&p.Consumer, &p.Event.Source, &p.Event.ID, &p.Event.Topic, &p.PayloadBytes, &p.Deliveries, &p.LastError, &at)
		if err != nil {
			return 0, nil, fmt.Errorf("outbox: parked: %w", err)
		}
		p.ParkedAt = time.Unix(0, at)
		out = append(out, p)
	}
	return n, out, rows.Err()
}

// RetryParked applies a parked event now, as Consume would, and deletes
// its idem_parked row in the same transaction. It reports whether apply
// ran: an event that meanwhile was applied (a republish got through) is not
// applied again, and its row is deleted all the same. An apply that fails
// keeps the row and returns the error. ErrNotParked: no such row;
// ErrPayloadCut: the payload was too large to keep.
func (o *Outbox) RetryParked(ctx context.Context, consumer, source, eventID string, apply func(ctx context.Context, tx *sql.Tx, e Event) error) (bool, error) {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	e := Event{ID: eventID, Source: source}
	var size int
	err = tx.QueryRowContext(ctx, o.d.Rebind(`SELECT topic, payload, payload_bytes FROM idem_parked
WHERE consumer = ? AND source = ? AND event_id = ?`), consumer, source, eventID).Scan(&e.Topic, &e.Payload, &size)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("%w: %.64q", ErrNotParked, eventID)
	case err != nil:
		return false, fmt.Errorf("outbox: retry parked: %w", err)
	case len(e.Payload) < size:
		return false, fmt.Errorf("%w: %.64q has %d bytes", ErrPayloadCut, eventID, size)
	}
	applied, err := o.consumeTx(ctx, tx, consumer, e, apply)
	if err != nil {
		return false, err
	}
	_, err = tx.ExecContext(ctx, o.d.Rebind(`DELETE FROM idem_parked WHERE consumer = ? AND source = ? AND event_id = ?`), consumer, source, eventID)
	if err != nil {
		return false, fmt.Errorf("outbox: retry parked: %w", err)
	}
	return applied, tx.Commit()
}

package outbox

import (
	"context"
	"database/sql"
	"fmt"
)

// Consume applies e exactly once for the named consumer: it records the
// event id in idem_consumed and runs apply in the same transaction, so a
// redelivered event finds its id and is skipped, and an apply that fails
// leaves no record and runs again on the next delivery. It reports whether
// apply ran. The consumer's own effects must be written through tx.
//
// The dedupe key is the consumer, e.Source and e.ID: events of two outboxes
// (two Sources) with one id are both applied, and one outbox's repeats are
// skipped. An event with a Source is recorded under the consumer name
// "consumer@source", one without under "consumer", as before Source
// existed; so keep a consumer name free of '@', and keep an outbox's
// Source for good once it published (a renamed Source applies the events
// it republishes again).
func (o *Outbox) Consume(ctx context.Context, consumer string, e Event, apply func(ctx context.Context, tx *sql.Tx, e Event) error) (bool, error) {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	applied, err := o.consumeTx(ctx, tx, consumer, e, apply)
	if err != nil || !applied {
		return false, err
	}
	return true, tx.Commit()
}

func (o *Outbox) consumeTx(ctx context.Context, tx *sql.Tx, consumer string, e Event, apply func(ctx context.Context, tx *sql.Tx, e Event) error) (bool, error) {
	res, err := tx.ExecContext(ctx, o.d.Rebind(`INSERT INTO idem_consumed (consumer, event_id, consumed_at)
VALUES (?, ?, ?) ON CONFLICT (consumer, event_id) DO NOTHING`), consumedBy(consumer, e.Source), e.ID, o.now().UnixNano())
	if err != nil {
		return false, fmt.Errorf("outbox: consume: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if err := apply(ctx, tx, e); err != nil {
		return false, err
	}
	return true, nil
}

// consumedBy is the consumer column of idem_consumed for an event of source.
func consumedBy(consumer, source string) string {
	if source == "" {
		return consumer
	}
	return consumer + "@" + source
}

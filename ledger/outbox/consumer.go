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
func (o *Outbox) Consume(ctx context.Context, consumer string, e Event, apply func(ctx context.Context, tx *sql.Tx, e Event) error) (bool, error) {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, o.d.Rebind(`INSERT INTO idem_consumed (consumer, event_id, consumed_at)
VALUES (?, ?, ?) ON CONFLICT (consumer, event_id) DO NOTHING`), consumer, e.ID, o.now().UnixNano())
	if err != nil {
		return false, fmt.Errorf("outbox: consume: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if err := apply(ctx, tx, e); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

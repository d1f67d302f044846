package pgstore

import (
	"context"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// OpenJournal connects to dsn and creates the call journal's tables: the
// durable idemrt.Journal for idemrt.WithJournal, and the store that any
// number of journal.Reconcilers share (they lease entries with SKIP LOCKED,
// so no two work one entry at once). maxConns bounds the pool (0 keeps
// database/sql's default). The tables may sit in the ledger's database:
// journal.New on the application's handle records entries in its own
// transactions (RecordTx).
func OpenJournal(ctx context.Context, dsn string, maxConns int) (*journal.SQL, error) {
	db, err := connect(ctx, dsn, maxConns)
	if err != nil {
		return nil, err
	}
	j, err := journal.New(ctx, db, sqlstore.Postgres)
	if err != nil {
		db.Close()
		return nil, err
	}
	return j, nil
}

// OpenJournalReadOnly connects to an existing journal for inspection, as
// OpenReadOnly does to a ledger: read-only sessions, statementTimeout per
// statement (0 for none), nothing migrated, and a database without the
// journal's tables refused (sqlstore.ErrNotLedger).
func OpenJournalReadOnly(ctx context.Context, dsn string, statementTimeout time.Duration) (*journal.SQL, error) {
	db, err := connectReadOnly(ctx, dsn, statementTimeout)
	if err != nil {
		return nil, err
	}
	if err := journal.CheckSchema(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return journal.Wrap(db, sqlstore.Postgres), nil
}

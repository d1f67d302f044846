package sqlitestore

import (
	"context"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// OpenJournal opens (creating if needed) a client's call journal in the
// SQLite file at path and creates its tables: the durable
// idemrt.Journal for idemrt.WithJournal, and the store a
// journal.Reconciler reads. Options are Open's (WithSynchronous: "NORMAL"
// keeps every entry through a crash of the process, which is what the
// journal is for, and loses the last ones only on a power loss). Writes go
// through one connection, as Open's do. To record entries in the
// application's own transactions (RecordTx), use journal.New on the handle
// those transactions use instead.
func OpenJournal(ctx context.Context, path string, opts ...Option) (*journal.SQL, error) {
	db, _, err := openWriter(path, opts)
	if err != nil {
		return nil, err
	}
	j, err := journal.New(ctx, db, sqlstore.SQLite)
	if err != nil {
		db.Close()
		return nil, err
	}
	return j, nil
}

// OpenJournalReadOnly opens an existing journal file for inspection (idemgen
// journal), as OpenReadOnly opens a ledger: nothing through it can write,
// nothing is migrated, and a file without the journal's tables is refused
// (sqlstore.ErrNotLedger).
func OpenJournalReadOnly(ctx context.Context, path string) (*journal.SQL, error) {
	s, err := openReadOnlyDB(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := journal.CheckSchema(ctx, s); err != nil {
		s.Close()
		return nil, err
	}
	return journal.Wrap(s, sqlstore.SQLite), nil
}

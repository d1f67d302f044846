package pgstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/journal/journaltest"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
)

// TestJournalPostgres runs the journal suite on PostgreSQL, where the two
// reconcilers really run side by side (SKIP LOCKED and the lease).
func TestJournalPostgres(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t)
	journaltest.Run(t, func(t *testing.T) *journal.SQL {
		resetJournal(t, dsn)
		j, err := pgstore.OpenJournal(context.Background(), dsn, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		return j
	})
}

func resetJournal(t *testing.T, dsn string) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE IF EXISTS idem_journal, idem_journal_attempt`); err != nil {
		t.Fatal(err)
	}
}

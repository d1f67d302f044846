package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/journal/journaltest"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
)

func TestJournalSQLite(t *testing.T) {
	journaltest.Run(t, func(t *testing.T) *journal.SQL {
		j, err := sqlitestore.OpenJournal(context.Background(), filepath.Join(t.TempDir(), "journal.db"), sqlitestore.WithSynchronous("NORMAL"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		return j
	})
}

package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	_ "github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ledger/ledgertest"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

func open(t *testing.T) *sqlstore.Store {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.DB().Close() })
	return s
}

func TestLedgerSQLite(t *testing.T) { ledgertest.Run(t, open) }

func TestOpenUsesWAL(t *testing.T) {
	s := open(t)
	var mode string
	if err := s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (%v), want wal", mode, err)
	}
}

func BenchmarkLedgerSQLite(b *testing.B) {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.DB().Close()
	ledgertest.Bench(b, s)
}

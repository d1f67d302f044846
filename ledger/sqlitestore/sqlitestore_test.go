package sqlitestore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/ledger/ledgertest"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

func open(t *testing.T) *sqlstore.Store {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
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

// BenchmarkLedgerSQLite measures with synchronous=NORMAL, so that the
// figures show the ledger's own cost rather than the disk's fsync latency;
// BenchmarkLedgerSQLiteFullSync is the durable default.
func BenchmarkLedgerSQLite(b *testing.B) {
	benchSQLite(b, sqlitestore.WithSynchronous("NORMAL"))
}

func BenchmarkLedgerSQLiteFullSync(b *testing.B) { benchSQLite(b) }

func benchSQLite(b *testing.B, opts ...sqlitestore.Option) {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ledgertest.Bench(b, s)
}

func TestSynchronousMode(t *testing.T) {
	ctx := context.Background()
	for mode, want := range map[string]int{"": 2, "NORMAL": 1} {
		var opts []sqlitestore.Option
		if mode != "" {
			opts = append(opts, sqlitestore.WithSynchronous(mode))
		}
		s, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "s.db"), opts...)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := s.DB().QueryRow(`PRAGMA synchronous`).Scan(&got); err != nil || got != want {
			t.Errorf("mode %q: PRAGMA synchronous = %d (%v), want %d", mode, got, err, want)
		}
		s.Close()
	}
	if _, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "x.db"), sqlitestore.WithSynchronous("SOMETIMES")); err == nil {
		t.Error("an unknown synchronous mode was accepted")
	}
}

// TestOpenPathWithURICharacters: a file name holding '#', '?' and '%' is
// the file Open creates and reopens, not a URI whose query or fragment
// starts in the middle of the name (which created "weird" and ignored the
// rest, or failed on the stray parameters).
func TestOpenPathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "weird#1?mode=ro%20.db")
	s, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `CREATE TABLE marker (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("Open did not create %q; the directory holds %q", filepath.Base(path), names)
	}
	ro, err := sqlitestore.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var n int
	if err := ro.DB().QueryRowContext(ctx, `SELECT count(*) FROM marker`).Scan(&n); err != nil {
		t.Fatalf("the read-only opener does not see the table Open wrote: %v", err)
	}
}

package main

import (
	"context"
	"path/filepath"
	"time"
	"testing"

	"github.com/idemgen/idemgen/ledger/sqlitestore"
)

// sqliteLedger creates a ledger file in t.TempDir() with the fixture's rows
// and closes it; it returns the file and the instant to look at it.
func sqliteLedger(t *testing.T) (string, time.Time) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := sqlitestore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	now := ledgerFixture(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, now
}

func TestLedgerExplore(t *testing.T) {
	path, now := sqliteLedger(t)
	for _, args := range [][]string{
		{"--dsn", "sqlite:" + path},
		{"--dsn", "sqlite:" + path, "--format", "json"},
		{"--dsn", "sqlite:" + path, "--key", "k-done"},
		{"--dsn", "sqlite:" + path, "--key", hostileKey, "--show-body"},
		{"--dsn", "sqlite:" + path, "--key", hostileKey, "--show-body", "--format", "json"},
	} {
		r := runLedgerCmd(t, now, args...)
		t.Logf("%v\nexit %d\n%s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
}

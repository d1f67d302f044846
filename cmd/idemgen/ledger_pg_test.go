package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
)

// TestLedgerPostgres runs the command against the fixture on a throwaway
// PostgreSQL cluster: the same overview as on SQLite, and a session the
// server refuses to let write.
func TestLedgerPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t).NewDatabase(t)
	s, err := pgstore.Open(ctx, dsn, 4)
	if err != nil {
		t.Fatal(err)
	}
	now := ledgerFixture(t, s)
	s.Close()

	r := runLedgerCmd(t, now, "--dsn", dsn)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, body, _ := strings.Cut(r.stdout, "\n"); body != wantOverview {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, wantOverview)
	}
	r = runLedgerCmd(t, now, "--dsn", dsn, "--key", hostileKey, "--show-body")
	if r.code != exitOK || !strings.Contains(r.stdout, `key          evil\x1b]0;pwned\x07key`) {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}

	ro, err := pgstore.OpenReadOnly(ctx, dsn, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.DB().ExecContext(ctx, `INSERT INTO idem_outbox (event_id, topic, created_at) VALUES ('e', 't', 0)`)
	if err == nil || !strings.Contains(err.Error(), "read-only transaction") {
		t.Errorf("INSERT through the read-only store: %v", err)
	}
	if _, err := ro.Purge(ctx, now); err == nil {
		t.Error("Purge wrote through the read-only store")
	}
}

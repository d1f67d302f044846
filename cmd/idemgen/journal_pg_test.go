package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestJournalPostgres: `journal ls` on a PostgreSQL DSN counts the entries,
// and the read-only journal refuses to write.
func TestJournalPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Start(t).NewDatabase(t)
	j, err := pgstore.OpenJournal(ctx, dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC)
	e := &idemrt.JournalEntry{ID: "e1", Operation: "createPayment", Safety: idemrt.Keyed, Method: "POST", URL: "http://api.test/payments",
		Key: "k1", Fingerprint: "sha256:00", Created: now.Add(-time.Minute), TTL: time.Hour}
	if err := j.Record(ctx, e); err != nil {
		t.Fatal(err)
	}
	j.Close()
	r := runJournalCmd(t, now, "ls", "--dsn", dsn)
	if r.code != exitOK || !strings.Contains(r.stdout, "unresolved    1") || !strings.Contains(r.stdout, "createPayment") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr %q", r.code, r.stdout, r.stderr)
	}
	ro, err := pgstore.OpenJournalReadOnly(ctx, dsn, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	e.ID = "e2"
	if err := ro.Record(ctx, e); err == nil || !strings.Contains(err.Error(), "read-only transaction") {
		t.Fatalf("Record through the read-only journal: %v", err)
	}
}

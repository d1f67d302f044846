package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// seeded writes a ledger with one stuck, one live and one expired row.
func seeded(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []ledger.Reservation{
		{ID: ledger.ID{Caller: "a", Operation: "op", Key: "stuck"}, Now: t0, Lease: time.Second, TTL: time.Hour},
		{ID: ledger.ID{Caller: "a", Operation: "op", Key: "live"}, Now: t0.Add(29 * time.Minute), Lease: 2 * time.Minute, TTL: time.Hour},
		{ID: ledger.ID{Caller: "a", Operation: "op", Key: "expired"}, Now: t0.Add(-2 * time.Hour), Lease: time.Second, TTL: time.Hour},
	} {
		r.Owner, r.Fingerprint = "o", "fp"
		if dec, err := s.Reserve(ctx, r); err != nil || dec.Outcome != ledger.Reserved {
			t.Fatalf("reserve %d: %v %v", i, dec.Outcome, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenReadOnlyRefusesWrites(t *testing.T) {
	ctx := context.Background()
	path := seeded(t)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlitestore.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := t0.Add(30 * time.Minute)
	if _, err := s.Purge(ctx, now); err == nil {
		t.Error("Purge wrote through a read-only store")
	}
	if err := s.Release(ctx, ledger.ID{Caller: "a", Operation: "op", Key: "stuck"}, "o"); err == nil {
		t.Error("Release wrote through a read-only store")
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO idem_outbox (event_id, topic, created_at) VALUES ('e', 't', 0)`); err == nil {
		t.Error("INSERT wrote through a read-only store")
	}
	// What it reads agrees with what a sweep does.
	st, err := s.Stats(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	stuck, err := s.Stuck(ctx, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if st.States[ledger.StateInProgress] != 3 || st.Stuck != 2 || st.Expired != 1 || len(stuck) != 2 {
		t.Errorf("stats = %+v, stuck = %d rows", st, len(stuck))
	}
	for _, rec := range stuck {
		if !rec.Stuck(now) || rec.Expired(now) != (rec.Key == "expired") {
			t.Errorf("%s: Stuck %v Expired %v", rec.Key, rec.Stuck(now), rec.Expired(now))
		}
	}
	recs, err := s.Find(ctx, ledger.ID{Key: "live"}, 10)
	if err != nil || len(recs) != 1 || recs[0].Stuck(now) || recs[0].Expired(now) {
		t.Errorf("Find(live) = %+v, %v", recs, err)
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Errorf("the file changed (%v)", err)
	}
}

func TestOpenReadOnlyNeverCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	_, err := sqlitestore.OpenReadOnly(context.Background(), path)
	if !errors.Is(err, sqlitestore.ErrNoFile) {
		t.Errorf("err = %v, want ErrNoFile", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file was created: %v", err)
	}
}

func TestOpenReadOnlyNotALedger(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", app)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE idem_ledger (caller TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	text := filepath.Join(dir, "text.db")
	if err := os.WriteFile(text, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, table := range map[string]string{app: "idem_ledger", text: ""} {
		_, err := sqlitestore.OpenReadOnly(context.Background(), path)
		var nl *sqlstore.NotLedgerError
		if !errors.Is(err, sqlstore.ErrNotLedger) || !errors.As(err, &nl) || nl.Table != table {
			t.Errorf("%s: err = %v, want a NotLedgerError on table %q", filepath.Base(path), err, table)
		}
	}
}

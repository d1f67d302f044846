package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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

// wantOverview is the fixture's overview after its first line.
const wantOverview = `
keys           5
  completed    3
  in_progress  2
stuck          1  in progress, lease expired: the sweeper releases them
expired        1  past their TTL: the sweeper purges them

stuck executions: 1 (oldest lease first)
CALLER  OPERATION    KEY      STUCK FOR  AGE    LEASE OWNER
bob     createOrder  k-crash  5m2s       5m12s  owner-crashed

outbox: 2 undelivered, 1 failing (oldest first)
SEQ  EVENT            TOPIC                AGE    ATTEMPTS  LAST ERROR
3    evt_k-done       order.created        5m12s  1         broker down
4    evt_\x1b[1mevil  order.created\u202e  5m12s  0         -

parked by the relay: 1 (oldest first)
SEQ  EVENT    TOPIC          PARKED FOR  ATTEMPTS  LAST ERROR
2    evt_big  order.created  5m12s       1         nats: maximum payload exceeded

parked by consumers: 1 (oldest first)
CONSUMER  SOURCE  EVENT  TOPIC          PARKED FOR  DELIVERIES  LAST ERROR
mailer    shop    evt_x  order.created  5m12s       10          smtp: 550 \x1b[31mrejected
`

func TestLedgerOverviewText(t *testing.T) {
	path, now := sqliteLedger(t)
	r := runLedgerCmd(t, now, "--dsn", "sqlite:"+path)
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := "ledger sqlite:" + path + " at 2026-01-02T04:09:17Z\n" + wantOverview
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
}

func TestLedgerOverviewJSON(t *testing.T) {
	path, now := sqliteLedger(t)
	r := runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--format", "json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var ov overviewReport
	if err := json.Unmarshal([]byte(r.stdout), &ov); err != nil {
		t.Fatal(err)
	}
	k := ov.Keys
	if k.Total != 5 || k.States["completed"] != 3 || k.States["in_progress"] != 2 || k.Stuck != 1 || k.Expired != 1 {
		t.Errorf("keys = %+v", k)
	}
	if len(ov.Stuck) != 1 || ov.Stuck[0].Key != "k-crash" || !ov.Stuck[0].Stuck || ov.Stuck[0].LeaseExpiresInSeconds != -302 {
		t.Errorf("stuck = %+v", ov.Stuck)
	}
	o := ov.Outbox
	if o.Undelivered != 2 || o.Failing != 1 || len(o.Oldest) != 2 || o.Oldest[0].EventID != "evt_k-done" ||
		o.Oldest[0].Attempts != 1 || o.Oldest[0].AgeSeconds != 312 || o.Oldest[1].EventID != "evt_\x1b[1mevil" {
		t.Errorf("outbox = %+v", o)
	}
	if o.Parked != 1 || len(o.ParkedEvents) != 1 || o.ParkedEvents[0].EventID != "evt_big" || o.ParkedEvents[0].ParkedAt == nil ||
		o.ParkedEvents[0].LastError != "nats: maximum payload exceeded" {
		t.Errorf("outbox parked = %+v", o.ParkedEvents)
	}
	if c := ov.Consumers; c.Parked != 1 || len(c.ParkedEvents) != 1 || c.ParkedEvents[0].EventID != "evt_x" ||
		c.ParkedEvents[0].Source != "shop" || c.ParkedEvents[0].Deliveries != 10 || c.ParkedEvents[0].ParkedSeconds != 312 {
		t.Errorf("consumers = %+v", c)
	}
	// The field names are documented in docs/cli.md: scripts depend on them.
	var raw struct {
		Stuck  []map[string]any `json:"stuck"`
		Outbox struct {
			Oldest       []map[string]any `json:"oldest"`
			ParkedEvents []map[string]any `json:"parked_events"`
		} `json:"outbox"`
		Consumers struct {
			ParkedEvents []map[string]any `json:"parked_events"`
		} `json:"consumers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	assertFields(t, raw.Stuck[0], "caller operation key fingerprint state stuck expired status created_at age_seconds expires_at expires_in_seconds lease_owner lease_expires_at lease_expires_in_seconds body_bytes")
	assertFields(t, raw.Outbox.Oldest[0], "seq event_id topic created_at age_seconds attempts last_error")
	assertFields(t, raw.Outbox.ParkedEvents[0], "seq event_id topic created_at age_seconds attempts last_error parked_at")
	assertFields(t, raw.Consumers.ParkedEvents[0], "consumer source event_id topic payload_bytes deliveries last_error parked_at parked_seconds")
}

func assertFields(t *testing.T, obj map[string]any, want string) {
	t.Helper()
	var got []string
	for k := range obj {
		got = append(got, k)
	}
	slices.Sort(got)
	w := strings.Fields(want)
	slices.Sort(w)
	if !slices.Equal(got, w) {
		t.Errorf("fields = %v, want %v", got, w)
	}
}

func TestLedgerKeyHidesBodyUnlessAsked(t *testing.T) {
	path, now := sqliteLedger(t)
	r := runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", "k-done")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"caller       alice\n", "state        completed\n",
		"expires      in 54m48s (2026-01-02T05:04:05Z)\n", "response     status 201, body 19 bytes\n",
		"body         hidden (--show-body prints it)\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "ord_k-done") || strings.Contains(r.stdout, "application/json") {
		t.Errorf("the stored response is shown without --show-body:\n%s", r.stdout)
	}
	r = runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", "k-done", "--show-body", "--body-limit", "8")
	if !strings.Contains(r.stdout, "header       Content-Type: application/json\n") ||
		!strings.Contains(r.stdout, `body         "{\"id\":\"o" (first 8 of 19 bytes)`) {
		t.Errorf("--show-body --body-limit 8:\n%s", r.stdout)
	}
	r = runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", "k-old", "--format", "json")
	var kr keyReport
	if err := json.Unmarshal([]byte(r.stdout), &kr); err != nil {
		t.Fatal(err)
	}
	if len(kr.Records) != 1 || !kr.Records[0].Expired || kr.Records[0].BodyBase64 != nil || kr.Records[0].Headers != nil {
		t.Errorf("k-old = %+v", kr.Records)
	}
}

func TestLedgerKeyScopes(t *testing.T) {
	path, now := sqliteLedger(t)
	r := runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", "k-busy", "--format", "json")
	var kr keyReport
	if err := json.Unmarshal([]byte(r.stdout), &kr); err != nil || len(kr.Records) != 1 {
		t.Fatalf("%v %s", err, r.stdout)
	}
	if rec := kr.Records[0]; rec.Caller != "bob" || rec.Operation != "refund" || rec.Stuck || rec.LeaseExpiresInSeconds != 9 {
		t.Errorf("k-busy = %+v", rec)
	}
	r = runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", "k-busy", "--caller", "alice")
	if r.code != exitProblem || !strings.Contains(r.stderr, `no record with key "k-busy" of caller "alice"`) || r.stdout != "" {
		t.Errorf("other caller: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", "k-busy", "--operation", "refund", "--caller", "bob")
	if r.code != exitOK || !strings.Contains(r.stdout, "lease        owner-busy, ends in 9s") {
		t.Errorf("exit %d, stdout %s", r.code, r.stdout)
	}
}

func TestLedgerLimitBoundsLists(t *testing.T) {
	path, now := sqliteLedger(t)
	r := runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--limit", "1")
	if !strings.Contains(r.stdout, "outbox: 2 undelivered, 1 failing (1 shown, oldest first; --limit shows more)\n") ||
		strings.Contains(r.stdout, "evil") {
		t.Errorf("--limit 1:\n%s", r.stdout)
	}
}

// forbidden are the runes a hostile value must never put on a terminal.
var forbidden = []rune{0x1b, 0x07, 0x7f, 0x9b, 0x202e}

func TestLedgerEscapesHostileValues(t *testing.T) {
	path, now := sqliteLedger(t)
	views := [][]string{
		{},
		{"--format", "json"},
		{"--key", hostileKey, "--show-body"},
		{"--key", hostileKey, "--show-body", "--format", "json"},
		{"--key", "no\x1b[2Jsuch", "--caller", "\x1b]0;x\x07"},
	}
	for _, v := range views {
		r := runLedgerCmd(t, now, append([]string{"--dsn", "sqlite:" + path}, v...)...)
		for _, c := range forbidden {
			if strings.ContainsRune(r.stdout+r.stderr, c) {
				t.Errorf("%q: output holds %U:\n%s%s", v, c, r.stdout, r.stderr)
			}
		}
	}
	r := runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", hostileKey, "--show-body")
	for _, want := range []string{
		"caller       mallory\\x1b[2J\\u202e\n",
		"key          evil\\x1b]0;pwned\\x07key\n",
		"header       Location: /orders/\\x1b[5mx\n",
		`body         "{\"id\":\"ord_x\"}\x1b[31mRED\u009b1m\nstate  completed\x7f"` + "\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// JSON escapes them too, and still carries the exact values.
	r = runLedgerCmd(t, now, "--dsn", "sqlite:"+path, "--key", hostileKey, "--show-body", "--format", "json")
	var kr keyReport
	if err := json.Unmarshal([]byte(r.stdout), &kr); err != nil || len(kr.Records) != 1 {
		t.Fatalf("%v %s", err, r.stdout)
	}
	if rec := kr.Records[0]; rec.Caller != hostileCaller || rec.Key != hostileKey || rec.BodyBase64 == nil {
		t.Errorf("record = %+v", rec)
	}
}

// TestLedgerIsReadOnly runs every view and checks that the database file
// kept its bytes and its modification time.
func TestLedgerIsReadOnly(t *testing.T) {
	path, now := sqliteLedger(t)
	before, mtime := fileState(t, path)
	for _, v := range [][]string{{}, {"--format", "json"}, {"--key", "k-crash", "--show-body"}, {"--key", "none"}} {
		runLedgerCmd(t, now, append([]string{"--dsn", "sqlite:" + path}, v...)...)
	}
	after, mtime2 := fileState(t, path)
	if before != after || !mtime.Equal(mtime2) {
		t.Errorf("the ledger file changed: %x at %v -> %x at %v", before, mtime, after, mtime2)
	}
}

func fileState(t *testing.T, path string) ([32]byte, time.Time) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b), fi.ModTime()
}

// TestLedgerReadsOldSchema: a database an earlier version created, and no
// newer one migrated (no parked_at or last_error column, no idem_parked),
// is read as it is: nothing parked, nothing refused.
func TestLedgerReadsOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := sqlitestore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE idem_outbox DROP COLUMN parked_at`, `ALTER TABLE idem_outbox DROP COLUMN last_error`,
		`DROP TABLE idem_parked`, `INSERT INTO idem_outbox (event_id, topic, created_at, attempts) VALUES ('evt-1', 't', 0, 2)`} {
		if _, err := s.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	r := runLedgerCmd(t, time.Unix(60, 0), "--dsn", "sqlite:"+path)
	for _, want := range []string{"outbox: 1 undelivered, 1 failing", "1    evt-1  t      1m0s  2         -\n",
		"parked by the relay: 0\n", "parked by consumers: 0\n"} {
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
}

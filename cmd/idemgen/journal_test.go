package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
)

const hostileJournalKey = "evil\x1b]0;pwned\x07key"

// sqliteJournal writes a journal with three entries: one resolved, one
// unresolved with hostile text in every stored string, and one a
// reconciler marked as needing a person.
func sqliteJournal(t *testing.T) (string, time.Time, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := sqlitestore.OpenJournal(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	now := time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC)
	entry := func(op, key, body string, created time.Time) *idemrt.JournalEntry {
		return &idemrt.JournalEntry{ID: "id-" + op, Operation: op, Safety: idemrt.Keyed, Method: "POST", URL: "http://api.test/x\x1b[2J",
			Header: http.Header{"X-Note": {"\u202eevil"}, "X-Tenant": nil}, Body: []byte(body), Key: key, Fingerprint: "sha256:00",
			Created: created, HeldUntil: created.Add(time.Minute), TTL: 24 * time.Hour}
	}
	for _, e := range []*idemrt.JournalEntry{
		entry("done", "k1", "{}", now.Add(-time.Hour)),
		entry("hostile\x1b[31m", hostileJournalKey, "\x1b[1mbody", now.Add(-2*time.Minute)),
		entry("old", "k3", "{}", now.Add(-48*time.Hour)),
	} {
		if err := j.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Resolve(ctx, "id-done", idemrt.Attempt{Number: 1, StatusCode: 201, Final: true, Outcome: idemrt.OutcomeSuccess}); err != nil {
		t.Fatal(err)
	}
	if err := j.Attempted(ctx, "id-hostile\x1b[31m", idemrt.Attempt{Number: 1, Err: errors.New("read: \x1b[31mreset"), Final: true, Outcome: idemrt.OutcomeUnknown}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Claim(ctx, "rec", now.Add(-time.Hour), time.Minute, time.Hour, 10); err != nil {
		t.Fatal(err)
	}
	if err := j.Settle(ctx, "id-old", "rec", journal.StateNeedsPerson, "needs-person", 0, "the key is past its TTL"); err != nil {
		t.Fatal(err)
	}
	return path, now, "id-hostile\x1b[31m"
}

func runJournalCmd(t *testing.T, now time.Time, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	tc := toolchain{now: func() time.Time { return now }}
	code := runWith(tc, append([]string{"journal"}, args...), &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

// TestJournalLs: counts by state and the latest entries, every stored
// string escaped (no ESC or bidi override reaches the terminal), and the
// file left unchanged.
func TestJournalLs(t *testing.T) {
	path, now, _ := sqliteJournal(t)
	before, _ := os.ReadFile(path)
	r := runJournalCmd(t, now, "ls", "--dsn", "sqlite:"+path)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"unresolved    1", "resolved      1", "needs-person  1", `hostile\x1b[31m`, `evil\x1b]0;pwned\x07key`, "the key is past its TTL", "resolved (success)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.ContainsAny(r.stdout, "\x1b\x07\u202e") {
		t.Errorf("raw control text in the output:\n%q", r.stdout)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("journal ls changed the file")
	}
	r = runJournalCmd(t, now, "ls", "--dsn", "sqlite:"+path, "--state", "needs-person", "--format", "json")
	var rep journalListReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Entries) != 1 || rep.Entries[0].Operation != "old" || rep.Counts["unresolved"] != 1 {
		t.Fatalf("json %v: %s", err, r.stdout)
	}
}

// TestJournalShow: one entry with its headers (one kept by name only), its
// hold, attempts and (on request) body, all escaped; an unknown id exits 1; a ledger without the journal's
// tables is refused.
func TestJournalShow(t *testing.T) {
	path, now, id := sqliteJournal(t)
	r := runJournalCmd(t, now, "show", "--dsn", "sqlite:"+path, id, "--show-body")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{`header       X-Note: \u202eevil`, `header       X-Tenant (value not kept)`, "held until   1m0s ago (2026-12-05T12:59:00Z): ended", `read: \x1b[31mreset`, `"\x1b[1mbody"`, `http://api.test/x\x1b[2J`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.ContainsAny(r.stdout, "\x1b\x07\u202e") {
		t.Errorf("raw control text in the output:\n%q", r.stdout)
	}
	if r := runJournalCmd(t, now, "show", "--dsn", "sqlite:"+path, "nope"); r.code != exitProblem || !strings.Contains(r.stderr, `no entry "nope"`) {
		t.Errorf("unknown id: exit %d, stderr %q", r.code, r.stderr)
	}
	ledgerPath, _ := sqliteLedger(t)
	if r := runJournalCmd(t, now, "ls", "--dsn", "sqlite:"+ledgerPath); r.code != exitProblem || !strings.Contains(r.stderr, "is not an idemgen journal") {
		t.Errorf("a ledger: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestJournalLsTellsBindingsApart: an operation's identity can be its
// binding, and two of Temporal's share their first 48 characters
// ("POST /api/v1/namespaces/{namespace}/workflows/{workflow_execution.workflow_id}/…");
// ls keeps both ends of a long operation, so each row still names its own.
func TestJournalLsTellsBindingsApart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := sqlitestore.OpenJournal(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC)
	const prefix = "POST /api/v1/namespaces/{namespace}/workflows/{workflow_execution.workflow_id}"
	ops := []string{prefix + "/signal/{signal_name}", prefix + "/update/{request.input.name}"}
	for i, op := range ops {
		e := &idemrt.JournalEntry{ID: "id-" + strconv.Itoa(i), Operation: op, Safety: idemrt.Unsafe, Method: "POST",
			URL: "http://api.test/x", Created: now.Add(-time.Minute)}
		if err := j.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	r := runJournalCmd(t, now, "ls", "--dsn", "sqlite:"+path)
	for _, tail := range []string{"/signal/{signal_name}", "/update/{request.input.name}"} {
		if !strings.Contains(r.stdout, tail) {
			t.Errorf("no row ends with %q:\n%s", tail, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "POST /api/v1/") {
		t.Errorf("the method and the start of the path are gone:\n%s", r.stdout)
	}
}

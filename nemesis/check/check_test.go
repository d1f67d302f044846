package check

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// clean is a history in which everything held: three intents, one of
// them settled by a reconciler, two events applied once, one order
// updated once from version 1.
func clean() Input {
	return Input{
		Seed: 7,
		Intents: []Intent{
			{Client: "c1", Op: "createOrder", Ref: "r1", Belief: SawOK},
			{Client: "c1", Op: "updateOrder", Ref: "r2", Belief: SettledExecuted},
			{Client: "c2", Op: "createRefund", Ref: "r3", Belief: SettledNotExecuted},
		},
		Executions: map[string]int{"r1": 1, "r2": 1},
		UpdateFrom: map[string][]int64{"ord_1": {1}},
		Version:    map[string]int64{"ord_1": 2},
		Events:     map[string]int{"evt_ord_1": 1, "evt_upd_1": 1},
		Faults:     map[string]int{"kill-server": 2, "toxic": 1},
		Elapsed:    time.Second,
		Latencies:  []time.Duration{time.Millisecond, 3 * time.Millisecond},
	}
}

func TestCheckPassesACleanHistory(t *testing.T) {
	r := Check(clean())
	if r.Failed() {
		t.Fatalf("violations in a clean history: %v", r.Violations)
	}
	if r.Intents != 3 || r.OK != 1 || r.Reconciled != 2 || r.EventsOnce != 2 {
		t.Errorf("counts: %+v", r)
	}
}

// A server without the ledger executes a retried create twice: two order
// rows for one reference.
func TestCheckReportsADuplicateWhenTheLedgerIsBypassed(t *testing.T) {
	in := clean()
	in.Executions["r1"] = 2
	r := Check(in)
	if r.Duplicates != 1 || !r.Failed() {
		t.Fatalf("duplicates %d, violations %v", r.Duplicates, r.Violations)
	}
	if !strings.Contains(r.Violations[0], "duplicate: createOrder r1") {
		t.Errorf("violation: %q", r.Violations[0])
	}
}

// A relay that marks an event delivered without publishing it: the event
// is in the outbox and never in the consumer's table.
func TestCheckReportsALostEventWhenTheRelaySkipsOne(t *testing.T) {
	in := clean()
	in.Events["evt_upd_1"] = 0
	in.Events["evt_ord_2"] = 2
	r := Check(in)
	if r.EventsLost != 1 || r.EventsTwice != 1 || r.EventsOnce != 1 || !r.Failed() {
		t.Fatalf("events once %d twice %d lost %d, violations %v", r.EventsOnce, r.EventsTwice, r.EventsLost, r.Violations)
	}
}

func TestCheckReportsALostUpdate(t *testing.T) {
	in := clean()
	// Two updates both replaced version 1: one overwrote the other.
	in.UpdateFrom["ord_1"] = []int64{1, 1}
	in.Version["ord_1"] = 2
	if r := Check(in); r.LostUpdates != 1 || !r.Failed() {
		t.Fatalf("lost updates %d, violations %v", r.LostUpdates, r.Violations)
	}
}

func TestCheckReportsLostMisjudgedAndUnknown(t *testing.T) {
	in := clean()
	in.Executions["r1"] = 0 // the client saw 201, nothing committed
	in.Executions["r3"] = 1 // the lookup said "not found", but it committed
	in.Intents = append(in.Intents,
		Intent{Client: "c2", Op: "createOrder", Ref: "r4", Belief: Unknown, Why: "EOF"},
		Intent{Client: "c2", Op: "createRefund", Ref: "r5", Belief: NeedsPerson, Why: "no x-lookup"})
	r := Check(in)
	if r.Lost != 1 || r.Misjudged != 1 || r.Unknown != 2 || len(r.NeedsPerson) != 1 {
		t.Fatalf("lost %d misjudged %d unknown %d needs-person %v", r.Lost, r.Misjudged, r.Unknown, r.NeedsPerson)
	}
	// A misjudged intent is an unknown outcome settled the wrong way: the
	// last line counts it with the unknown ones.
	if !strings.Contains(r.Summary(), "lost 1, unknown 3,") {
		t.Errorf("summary: %s", r.Summary())
	}
}

func TestCheckReportsStuckLedgerRows(t *testing.T) {
	in := clean()
	in.StuckLedgerRows = 3
	if r := Check(in); !r.Failed() {
		t.Fatal("stuck ledger rows were not a violation")
	}
}

func TestSummaryIsTheLastLine(t *testing.T) {
	in := clean()
	in.Events["evt_x"] = 0
	r := Check(in)
	var b bytes.Buffer
	r.Print(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := "nemesis: seed 7, intents 3, ok 1, reconciled 2, duplicates 0, lost 0, unknown 0, events once 2, twice 0, lost 1, faults kill-server,toxic"
	if got := lines[len(lines)-1]; got != want {
		t.Errorf("last line:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(b.String(), "| events applied once / twice / lost | 2 / 0 / 1 |") {
		t.Errorf("table:\n%s", b.String())
	}
}

func TestIntentsJoinHistoryAndJournal(t *testing.T) {
	records := []Record{
		{Type: RecInvoke, Client: "c1", Op: "createOrder", Ref: "a"},
		{Type: RecOK, Client: "c1", Op: "createOrder", Ref: "a", Micros: 2000},
		{Type: RecInvoke, Client: "c1", Op: "createRefund", Ref: "b"},
		{Type: RecInvoke, Client: "c1", Op: "createOrder", Ref: "c"}, // killed before its journal entry
		{Type: RecInvoke, Client: "c1", Op: "updateOrder", Ref: "d"},
	}
	entries := []journal.Entry{
		{JournalEntry: idemrt.JournalEntry{Key: "a", Operation: "createOrder"}, State: journal.StateResolved, Resolution: "success"},
		{JournalEntry: idemrt.JournalEntry{Key: "b", Operation: "createRefund"}, State: journal.StateResolved, Resolution: "not-executed"},
		{JournalEntry: idemrt.JournalEntry{Key: "d", Operation: "updateOrder"}, State: journal.StateUnresolved, LastError: "EOF"},
	}
	got, lat := Intents(records, entries)
	want := map[string]Belief{"a": SawOK, "b": SettledNotExecuted, "c": NeverSent, "d": Unknown}
	if len(got) != len(want) {
		t.Fatalf("intents: %+v", got)
	}
	for _, it := range got {
		if it.Belief != want[it.Ref] {
			t.Errorf("%s: %s, want %s", it.Ref, it.Belief, want[it.Ref])
		}
	}
	if len(lat) != 1 || lat[0] != 2*time.Millisecond {
		t.Errorf("latencies %v", lat)
	}
}

func TestReadHistorySkipsATornLastLine(t *testing.T) {
	recs, err := readRecords(strings.NewReader(`{"t":"invoke","ref":"a"}` + "\n" + `{"t":"ok","re`))
	if err != nil || len(recs) != 1 || recs[0].Ref != "a" {
		t.Fatalf("%v %+v", err, recs)
	}
}

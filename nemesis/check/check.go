// Package check is the nemesis's checker: from the clients' histories and
// journals, the business tables, the ledger and the consumer's table, it
// asserts over the whole history that every intent executed at most once,
// that every intent a client saw succeed executed exactly once, that every
// unknown outcome was settled, that every committed outbox event was
// applied exactly once downstream, that no ledger row was left in
// progress, and that no update under If-Match was lost.
package check

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// Belief is what a client ends up believing about one intent.
type Belief int

const (
	// NeverSent: no journal entry (the process died before recording) or
	// the call sent nothing: not executed.
	NeverSent Belief = iota
	// SawOK: the call itself ended in success.
	SawOK
	// Refused: the call ended with a definite refusal (a 4xx, a 5xx that
	// the server rolled back).
	Refused
	// SettledExecuted and SettledNotExecuted: the reconciler settled an
	// unknown outcome.
	SettledExecuted
	SettledNotExecuted
	// Unknown: still unresolved when the reconcilers went quiet.
	Unknown
	// NeedsPerson: the reconciler gave up; Intent.Why says why.
	NeedsPerson
)

var beliefNames = [...]string{"never-sent", "ok", "refused", "settled-executed", "settled-not-executed", "unknown", "needs-person"}

// String names the belief as the checker's violations print it.
func (b Belief) String() string { return beliefNames[b] }

// executed reports whether the client believes the intent executed, and
// whether it believes anything at all.
func (b Belief) executed() (executed, known bool) {
	switch b {
	case SawOK, SettledExecuted:
		return true, true
	case NeverSent, Refused, SettledNotExecuted:
		return false, true
	}
	return false, false
}

// Intent is one business intent of one client.
type Intent struct {
	Client, Op, Ref string
	Belief          Belief
	Why             string
}

// Input is everything the checker reads, gathered after the run.
type Input struct {
	Seed    uint64
	Intents []Intent
	// Executions counts the business rows of each reference (orders,
	// order updates, refunds).
	Executions map[string]int
	// UpdateFrom holds, per order, the version each applied update
	// replaced; Version is each order's final version.
	UpdateFrom map[string][]int64
	Version    map[string]int64
	// Events counts, per committed outbox event, its applications
	// downstream; nil when no broker ran.
	Events map[string]int
	// StuckLedgerRows are ledger rows still in progress after the sweeper.
	StuckLedgerRows int
	// Faults counts the faults injected, by kind.
	Faults map[string]int
	// Elapsed is the workload's length; Latencies the calls that
	// succeeded.
	Elapsed   time.Duration
	Latencies []time.Duration
}

// Report is the checker's verdict.
type Report struct {
	Seed                                     uint64
	Intents, OK, Reconciled, Refused, Unsent int
	Duplicates, Lost, Unknown, Misjudged     int
	LostUpdates, StuckLedgerRows             int
	EventsChecked                            bool
	EventsOnce, EventsTwice, EventsLost      int
	NeedsPerson                              []Intent
	Faults                                   map[string]int
	Throughput                               float64
	P50, P99                                 time.Duration
	// Violations lists each broken invariant, with the intent or event.
	Violations []string
}

// Failed reports whether an invariant was broken.
func (r *Report) Failed() bool { return len(r.Violations) > 0 }

// maxListed bounds the violations listed per kind.
const maxListed = 20

// Check computes the report of in.
func Check(in Input) *Report {
	r := &Report{Seed: in.Seed, Intents: len(in.Intents), Faults: in.Faults, StuckLedgerRows: in.StuckLedgerRows}
	for _, it := range in.Intents {
		r.checkIntent(it, in.Executions[it.Ref])
	}
	r.checkUpdates(in.UpdateFrom, in.Version)
	r.checkEvents(in.Events)
	if in.StuckLedgerRows > 0 {
		r.violate("%d ledger rows still in_progress after the sweeper", in.StuckLedgerRows)
	}
	if in.Elapsed > 0 {
		r.Throughput = float64(len(in.Intents)) / in.Elapsed.Seconds()
	}
	r.P50, r.P99 = percentile(in.Latencies, 0.50), percentile(in.Latencies, 0.99)
	return r
}

func (r *Report) checkIntent(it Intent, executions int) {
	switch it.Belief {
	case SawOK:
		r.OK++
	case SettledExecuted, SettledNotExecuted:
		r.Reconciled++
	case Refused:
		r.Refused++
	case NeverSent:
		r.Unsent++
	case Unknown:
		r.Unknown++
		r.violate("unknown left: %s %s (%s): %s", it.Op, it.Ref, it.Client, it.Why)
	case NeedsPerson:
		r.Unknown++
		r.NeedsPerson = append(r.NeedsPerson, it)
		r.violate("needs a person: %s %s (%s): %s", it.Op, it.Ref, it.Client, it.Why)
	}
	if executions > 1 {
		r.Duplicates++
		r.violate("duplicate: %s %s (%s) executed %d times", it.Op, it.Ref, it.Client, executions)
	}
	believed, known := it.Belief.executed()
	switch {
	case known && believed && executions == 0:
		r.Lost++
		r.violate("lost: %s %s (%s) seen %s, never executed", it.Op, it.Ref, it.Client, it.Belief)
	case known && !believed && executions > 0:
		r.Misjudged++
		r.violate("misjudged: %s %s (%s) seen %s, but executed", it.Op, it.Ref, it.Client, it.Belief)
	}
}

// checkUpdates finds lost updates: the updates applied to one order must
// each have replaced a different version, one after the other from 1, and
// the order's version must count them all.
func (r *Report) checkUpdates(from map[string][]int64, version map[string]int64) {
	orders := make([]string, 0, len(from))
	for o := range from {
		orders = append(orders, o)
	}
	sort.Strings(orders)
	for _, o := range orders {
		vs := slices.Clone(from[o])
		slices.Sort(vs)
		ok := version[o] == int64(len(vs))+1
		for i, v := range vs {
			ok = ok && v == int64(i)+1
		}
		if !ok {
			r.LostUpdates++
			r.violate("lost update: order %s at version %d after updates from versions %v", o, version[o], vs)
		}
	}
}

func (r *Report) checkEvents(events map[string]int) {
	if events == nil {
		return
	}
	r.EventsChecked = true
	ids := make([]string, 0, len(events))
	for id := range events {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		switch n := events[id]; {
		case n == 1:
			r.EventsOnce++
		case n == 0:
			r.EventsLost++
			r.violate("event lost: %s committed, never applied", id)
		default:
			r.EventsTwice++
			r.violate("event applied %d times: %s", n, id)
		}
	}
}

func (r *Report) violate(format string, args ...any) {
	r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

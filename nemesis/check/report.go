package check

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// FaultKinds are the nemesis's fault kinds, in the order the last line
// names them.
var FaultKinds = []string{"kill-server", "pause-server", "failover", "kill-broker", "kill-client", "toxic"}

// Print writes the report's table, the violations (at most maxListed of
// each report) and, last, the one-line summary.
func (r *Report) Print(w io.Writer) {
	rows := [][2]string{
		{"intents", fmt.Sprint(r.Intents)},
		{"ok (the call saw success)", fmt.Sprint(r.OK)},
		{"settled by reconciliation", fmt.Sprint(r.Reconciled)},
		{"refused (definite answer) / never sent", fmt.Sprintf("%d / %d", r.Refused, r.Unsent)},
		{"duplicates (executed twice or more)", fmt.Sprint(r.Duplicates)},
		{"lost (seen executed, never executed)", fmt.Sprint(r.Lost)},
		{"misjudged (seen not executed, executed)", fmt.Sprint(r.Misjudged)},
		{"unknown left (needs-person included)", fmt.Sprint(r.Unknown)},
		{"lost updates under If-Match", fmt.Sprint(r.LostUpdates)},
		{"ledger rows in_progress after the sweeper", fmt.Sprint(r.StuckLedgerRows)},
		{"events applied once / twice / lost", r.eventsCell()},
		{"faults injected", r.faultsCell()},
		{"throughput (intents/s offered)", fmt.Sprintf("%.1f", r.Throughput)},
		{"latency of successful calls p50 / p99", fmt.Sprintf("%v / %v", r.P50.Round(time.Millisecond), r.P99.Round(time.Millisecond))},
	}
	fmt.Fprintln(w, "| what | count |")
	fmt.Fprintln(w, "|---|---|")
	for _, row := range rows {
		fmt.Fprintf(w, "| %s | %s |\n", row[0], row[1])
	}
	for _, it := range r.NeedsPerson {
		fmt.Fprintf(w, "needs a person: %s %s (%s): %s\n", it.Op, it.Ref, it.Client, it.Why)
	}
	for i, v := range r.Violations {
		if i == maxListed {
			fmt.Fprintf(w, "... and %d more violations\n", len(r.Violations)-maxListed)
			break
		}
		fmt.Fprintln(w, "VIOLATION:", v)
	}
	fmt.Fprintln(w, r.Summary())
}

func (r *Report) eventsCell() string {
	if !r.EventsChecked {
		return "not checked (no broker)"
	}
	return fmt.Sprintf("%d / %d / %d", r.EventsOnce, r.EventsTwice, r.EventsLost)
}

func (r *Report) faultsCell() string {
	var parts []string
	for _, k := range FaultKinds {
		if n := r.Faults[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Summary is the last line: nemesis: seed S, intents N, ok N, reconciled
// N, duplicates N, lost N, unknown N, events once N, twice N, lost N,
// faults K (the kinds injected, comma-separated, "none" for none). Its
// unknown counts the outcomes left unsettled and the misjudged ones (an
// unknown outcome settled the wrong way: the client believes "not
// executed" about an intent that executed), so that a line with every
// count at zero means no intent broke the promise.
func (r *Report) Summary() string {
	var kinds []string
	for _, k := range FaultKinds {
		if r.Faults[k] > 0 {
			kinds = append(kinds, k)
		}
	}
	faults := strings.Join(kinds, ",")
	if faults == "" {
		faults = "none"
	}
	return fmt.Sprintf("nemesis: seed %d, intents %d, ok %d, reconciled %d, duplicates %d, lost %d, unknown %d, events once %d, twice %d, lost %d, faults %s",
		r.Seed, r.Intents, r.OK, r.Reconciled, r.Duplicates, r.Lost, r.Unknown+r.Misjudged, r.EventsOnce, r.EventsTwice, r.EventsLost, faults)
}

package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// printTable writes the outcomes as one Markdown table.
func printTable(w io.Writer, cfg config, out []outcome) {
	fmt.Fprintf(w, "### Amplification: %d logical calls, %d in flight, deadline %v per call (delays and deadline scaled 1/%g)\n\n",
		cfg.calls, cfg.workers, cfg.deadline, cfg.scale)
	fmt.Fprintln(w, "| scenario | client | attempts / call | attempts / call, 2nd half | succeeded | failed: why | within deadline | p50 | p99 | max | wall |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
	for _, o := range out {
		half := o.calls - o.calls/2
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %d | %s | %d | %s | %s | %s | %s |\n",
			o.scenario, o.client,
			float64(o.attempts)/float64(o.calls), float64(o.attemptsLate)/float64(half),
			o.succeeded, failureCell(o.failures), o.inDeadline, ms(o.p50), ms(o.p99), ms(o.max), ms(o.wall))
	}
	fmt.Fprintln(w, "\nLatencies and wall time are as measured, that is at the 1/"+fmt.Sprint(cfg.scale)+" scale.")
}

func ms(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

// failureCell lists failure counts by reason, in a fixed order.
func failureCell(f map[string]int) string {
	var parts []string
	for _, r := range []string{"throttled", "budget", "attempts", "deadline", "gave up"} {
		if f[r] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", f[r], r))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

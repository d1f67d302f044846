package main

import (
	"fmt"
	"io"
	"net/url"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

func urlOf(s string) (*url.URL, error) { return url.Parse(s) }

// printTail writes the heavy-tail table, and how the hedged rows compare
// with the unhedged one.
func printTail(w io.Writer, cfg config, rows []result) {
	fmt.Fprintf(w, "### Hedging a heavy tail: %d GETs per row at %d/s, %v per request, %.1f%% of requests %dx slower\n\n",
		cfg.calls, cfg.rate, cfg.base, cfg.slow*100, cfg.factor)
	fmt.Fprintln(w, "| client | p50 | p99 | p99.9 | max | p99 / unhedged p99 | extra requests | hedges | failed |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		extra := float64(r.requests-int64(r.calls)) / float64(r.calls) * 100
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.2f | %.2f%% | %d | %d |\n", r.name, ms(r.p50), ms(r.p99),
			ms(r.p999), ms(r.max), float64(r.p99)/float64(rows[0].p99), extra, r.hedges, r.failed)
	}
	fmt.Fprintln(w, "\n\"Extra requests\": requests the server saw beyond one per call, as a share of the calls.")
}

// printOutage writes the outage table.
func printOutage(w io.Writer, cfg config, rows []result) {
	b := idemrt.DefaultBudget(idemrt.Interactive)
	fmt.Fprintf(w, "\n### Hedging under an outage: %d GETs at %d/s, every request answered 503 after %v; hedge After %v; budget %g tokens, %g per send\n\n",
		cfg.outageCalls, cfg.rate, cfg.outage, cfg.after, b.Capacity, b.RetryCost)
	fmt.Fprintln(w, "| client | calls | throttled before sending | first sends | hedges | retries | requests the server saw | beyond the first sends | budget allows |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d | %g |\n", r.name, r.calls, int64(r.calls)-r.firsts,
			r.firsts, r.hedges, r.retries, r.requests, r.requests-r.firsts, b.Capacity/b.RetryCost)
	}
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

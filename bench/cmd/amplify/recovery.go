package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// recoveryConfig is the open-loop scenario: a fleet makes rate calls a
// second (unscaled) to a host that fails every call for outage, then
// recovers; the run goes on for after.
type recoveryConfig struct {
	rate          int
	outage, after time.Duration
	scale         float64
}

// recoveryRow is one fleet's measurement: attempts per call during the
// outage, and the calls that succeeded in each second after it.
type recoveryRow struct {
	name          string
	outageCalls   int
	outageAttempt int64
	perSecond     []int
	rate          int
}

// fleetVariant is a fleet's throttle setting.
type fleetVariant struct {
	name string
	opts func(scale float64) []idemrt.Option
}

// fleetVariants: the default throttle, grpc-go's window (30 s), and none.
var fleetVariants = []fleetVariant{
	{"throttle, 4 s window (default)", func(float64) []idemrt.Option { return nil }},
	{"throttle, 30 s window (grpc-go's)", func(scale float64) []idemrt.Option {
		return []idemrt.Option{idemrt.WithAdaptiveThrottleWindow(scaled(30*time.Second, scale))}
	}},
	{"budgets only (throttle off)", func(float64) []idemrt.Option {
		return []idemrt.Option{idemrt.WithoutAdaptiveThrottle()}
	}},
}

// runRecovery runs every fleet variant through the scenario.
func runRecovery(cfg recoveryConfig) []recoveryRow {
	var rows []recoveryRow
	for _, v := range fleetVariants {
		rows = append(rows, recoverOne(cfg, v))
	}
	return rows
}

// recoverOne sends calls at cfg.rate (scaled), each in its own goroutine,
// so that the offered load does not depend on how fast calls end.
func recoverOne(cfg recoveryConfig, v fleetVariant) recoveryRow {
	total := int((cfg.outage + cfg.after).Seconds() * float64(cfg.rate))
	outageCalls := int(cfg.outage.Seconds() * float64(cfg.rate))
	srv := newServer(total, 1, 1)
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 200, MaxIdleConns: 200}
	defer tr.CloseIdleConnections()
	call := newFleet(srv.URL, &http.Client{Transport: tr}, scaling{delays: cfg.scale}, v.opts(cfg.scale)...)
	deadline := scaled(10*time.Second, cfg.scale)
	row := recoveryRow{name: v.name, outageCalls: outageCalls, rate: cfg.rate,
		perSecond: make([]int, int(cfg.after.Seconds()))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / float64(cfg.rate) / cfg.scale)
	start := time.Now()
	for n := range total {
		time.Sleep(time.Until(start.Add(time.Duration(n) * interval)))
		if n == outageCalls {
			row.outageAttempt = srv.total.Load()
			srv.setFailRate(0)
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			if err := call(ctx, n); err == nil && n >= outageCalls {
				mu.Lock()
				row.perSecond[(n-outageCalls)/cfg.rate]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return row
}

// recoveredAt is the first second after the recovery from which at least
// 99% of the calls of every second succeed, or -1.
func (r recoveryRow) recoveredAt() int {
	for s := range r.perSecond {
		ok := true
		for _, n := range r.perSecond[s:] {
			ok = ok && n*100 >= r.rate*99
		}
		if ok {
			return s
		}
	}
	return -1
}

// printRecovery writes the rows as a Markdown table.
func printRecovery(w io.Writer, cfg recoveryConfig, rows []recoveryRow) {
	fmt.Fprintf(w, "\n### Outage and recovery: 100 clients of one process, %d calls a second, %v of 503, then %v healthy (delays, deadlines and windows scaled 1/%g)\n\n",
		cfg.rate, cfg.outage, cfg.after, cfg.scale)
	fmt.Fprintln(w, "| fleet | attempts / call during the outage | back to full throughput after | calls that succeeded, first 10 s after the recovery |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for _, r := range rows {
		back := "not within the run"
		if s := r.recoveredAt(); s >= 0 {
			back = fmt.Sprintf("%d s", s)
		}
		first := r.perSecond[:min(10, len(r.perSecond))]
		fmt.Fprintf(w, "| %s | %.3f | %s | %v |\n", r.name,
			float64(r.outageAttempt)/float64(r.outageCalls), back, first)
	}
	fmt.Fprintln(w, "\n\"Back to full throughput\": the first second from which at least 99% of each second's calls succeed.")
}

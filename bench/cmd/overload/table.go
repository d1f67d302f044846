package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// outcome is the summary of one run.
type outcome struct {
	load             string
	calls, succeeded int
	// arrived is the attempts a second that reached the server within
	// the load window: what the fleet in fact offered.
	arrived              float64
	goodput              float64
	served, shed, hinted int64
	meanAttempts         float64
	maxAttempts          int32
	p50, p99             time.Duration
	failures             map[string]int
	retries              int64
	retryPeak, retryMean float64
	// handler is the mean time the handler took per request served;
	// occupancy the share of the slots' time over the load window that
	// handlers ran (whatever the machine made of the sleep).
	handler   time.Duration
	occupancy float64
	// cpu is the CPU time fleet and server used in the run; serverCPU the
	// server's part, when it ran in a process of its own (-split).
	cpu, serverCPU time.Duration
}

// perAttempt is d per attempt the server answered.
func (o outcome) perAttempt(d time.Duration) time.Duration {
	if n := o.served + o.shed; n > 0 {
		return d / time.Duration(n)
	}
	return 0
}

// cpuCell is the CPU time per attempt, with the server's part when known.
func (o outcome) cpuCell() string {
	all := fmt.Sprintf("%.0f µs", float64(o.perAttempt(o.cpu))/float64(time.Microsecond))
	if o.serverCPU == 0 {
		return all
	}
	return fmt.Sprintf("%s (server %.0f µs)", all, float64(o.perAttempt(o.serverCPU))/float64(time.Microsecond))
}

// summarize folds a run's calls and the server's counts into an outcome.
func summarize(cfg config, calls []call, srv *counted, retries []atomic.Int64) outcome {
	o := outcome{load: loadavg(), calls: len(calls), failures: map[string]int{},
		served: srv.served.Load(), shed: srv.shed.Load(), hinted: srv.hinted.Load()}
	var lat []time.Duration
	var attempts int64
	inWindow := 0
	for _, c := range calls {
		attempts += int64(c.attempts)
		o.maxAttempts = max(o.maxAttempts, c.attempts)
		lat = append(lat, c.latency)
		if c.err != nil {
			o.failures[reasonOf(c.err)]++
			continue
		}
		o.succeeded++
		if c.end <= cfg.duration {
			inWindow++
		}
	}
	o.goodput = float64(inWindow) / (cfg.capacity() * cfg.duration.Seconds())
	o.meanAttempts = float64(attempts) / float64(len(calls))
	slices.Sort(lat)
	o.p50, o.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	o.retries, o.retryPeak, o.retryMean = bunching(retries)
	var arrived int64
	for i := range min(int(cfg.duration/bucket), len(srv.arrivals)) {
		arrived += srv.arrivals[i].Load()
	}
	o.arrived = float64(arrived) / cfg.duration.Seconds()
	if o.served > 0 {
		o.handler = time.Duration(srv.busy.Load() / o.served)
	}
	o.occupancy = float64(srv.busyInWindow.Load()) / (float64(cfg.slots) * float64(cfg.duration))
	return o
}

// bunching returns the retries, and the most and the mean per 100 ms over
// the span from the first bucket with a retry to the last.
func bunching(b []atomic.Int64) (total int64, peak, mean float64) {
	first, last := -1, -1
	for i := range b {
		n := b[i].Load()
		if n == 0 {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		total += n
		peak = max(peak, float64(n))
	}
	if first < 0 {
		return 0, 0, 0
	}
	return total, peak, float64(total) / float64(last-first+1)
}

// reasonOf names the error that ended a failed call.
func reasonOf(err error) string {
	for _, e := range []error{idemrt.ErrBudgetExhausted, idemrt.ErrAttemptsExhausted, idemrt.ErrRetryAfterTooLong,
		idemrt.ErrDeadline, context.DeadlineExceeded} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	return err.Error()
}

// loadavg is the machine's 1-minute load average, read at the run's end.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func printHeader(w io.Writer, cfg config) {
	fmt.Fprintf(w, "### Overload: %d clients at %gx a capacity of %.0f req/s (%d slots, %v handler) for %v\n\n",
		cfg.clients, cfg.factor, cfg.capacity(), cfg.slots, cfg.service, cfg.duration)
	fmt.Fprintln(w, "| run | load avg | calls | arrived / s | goodput | slots busy | handler took | 503s | with Retry-After | attempts / call | max | p50 | p99 | failed: why | retries | retry peak / mean per 100 ms | CPU / attempt |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
}

func printRow(w io.Writer, name string, o outcome) {
	fmt.Fprintf(w, "| %s | %s | %d | %.0f | %.1f%% | %.1f%% | %.1f ms | %d | %d | %.2f | %d | %s | %s | %s | %d | %.1f | %s |\n",
		name, o.load, o.calls, o.arrived, 100*o.goodput, 100*o.occupancy, float64(o.handler)/float64(time.Millisecond), o.shed, o.hinted, o.meanAttempts, o.maxAttempts,
		ms(o.p50), ms(o.p99), failureCell(o.failures), o.retries, ratio(o.retryPeak, o.retryMean),
		o.cpuCell())
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// failureCell lists failure counts by error, most first.
func failureCell(f map[string]int) string {
	var parts []string
	for r, n := range f {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// median returns the run with the median goodput.
func median(out []outcome) outcome {
	s := slices.Clone(out)
	slices.SortFunc(s, func(a, b outcome) int {
		return int(1e6*a.goodput) - int(1e6*b.goodput)
	})
	return s[len(s)/2]
}

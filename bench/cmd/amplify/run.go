package main

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// outcome is the measurement of one contender in one scenario.
type outcome struct {
	scenario, client string
	calls            int
	// attempts and attemptsLate count the server's attempts over all calls
	// and over the second half of them.
	attempts, attemptsLate int64
	succeeded, inDeadline  int
	// failures counts failed calls by reason (see reasonOf).
	failures            map[string]int
	p50, p99, max, wall time.Duration
}

// runOne makes cfg.calls logical calls with cfg.workers goroutines against
// a fresh server, each call under its own scaled deadline.
func runOne(cfg config, sc scenario, c contender) outcome {
	srv := newServer(cfg.calls, sc.failRate, cfg.seed)
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: cfg.workers, MaxIdleConns: cfg.workers}
	defer tr.CloseIdleConnections()
	call := c.build(srv.URL, &http.Client{Transport: tr}, scaling{delays: cfg.scale, window: cfg.throttleWindow})
	deadline := scaled(cfg.deadline, cfg.scale)

	lat := make([]time.Duration, cfg.calls)
	errs := make([]error, cfg.calls)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range cfg.workers {
		wg.Go(func() {
			for n := int(next.Add(1) - 1); n < cfg.calls; n = int(next.Add(1) - 1) {
				lat[n], errs[n] = timedCall(call, n, deadline)
			}
		})
	}
	wg.Wait()
	o := outcome{scenario: sc.name, client: c.name, calls: cfg.calls, wall: time.Since(start)}
	o.attempts = srv.attemptsOf(0, cfg.calls)
	o.attemptsLate = srv.attemptsOf(cfg.calls/2, cfg.calls)
	o.summarize(lat, errs, deadline)
	return o
}

// timedCall makes call n under a fresh deadline and times it.
func timedCall(call caller, n int, deadline time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	err := call(ctx, n)
	return time.Since(start), err
}

// lateness is the share of the deadline a call may overrun and still count
// as within it: timer and scheduler jitter with 50 goroutines on a loaded
// 2-core machine, not the client's doing (10 ms at the default scale).
const lateness = 0.02

// summarize fills the success, failure, deadline and latency figures.
func (o *outcome) summarize(lat []time.Duration, errs []error, deadline time.Duration) {
	o.failures = map[string]int{}
	for i, d := range lat {
		if errs[i] == nil {
			o.succeeded++
		} else {
			o.failures[reasonOf(errs[i])]++
		}
		if d <= deadline+time.Duration(lateness*float64(deadline)) {
			o.inDeadline++
		}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	o.p50, o.p99, o.max = s[len(s)/2], s[len(s)*99/100], s[len(s)-1]
}

// reasonOf names why a call failed: the idemgen limit or throttle that stopped it, the
// deadline, or "gave up" for a retry loop that ran out of attempts.
func reasonOf(err error) string {
	switch {
	case errors.Is(err, idemrt.ErrThrottled):
		return "throttled"
	case errors.Is(err, idemrt.ErrBudgetExhausted):
		return "budget"
	case errors.Is(err, idemrt.ErrDeadline), errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, idemrt.ErrAttemptsExhausted):
		return "attempts"
	}
	return "gave up"
}

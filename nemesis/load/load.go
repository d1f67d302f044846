// Package load measures the load curve of the nemesis's generated server
// (docs/benchmarks.md, "Load curve"): keyed creates, each with a fresh
// Idempotency-Key and a fresh business reference, driven through the
// balancer by vegeta's attacker at a number of concurrent clients, with
// the throughput and the latency percentiles of each cell.
//
// A cell is measured in two phases. The probe is a closed loop: the
// clients (vegeta workers, capped at their number) send as fast as the
// answers come back, which finds the most the topology sustains at that
// concurrency. The measure is an open loop paced by vegeta at Load times
// that rate, still capped at the same number of workers: its req/s and
// its p50 and p99 are the cell's figures, the latency a client sees when
// the system runs near, but not past, its limit.
package load

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Load is the share of the probe's rate the measure phase offers.
const Load = 0.8

// Targeter returns a vegeta targeter whose every target is a fresh keyed
// create of an order at base: POST /orders with a new Idempotency-Key and
// a new business reference, both from newID, as tenant. newID must be safe
// for concurrent use (vegeta's workers call the targeter concurrently).
func Targeter(base, tenant string, newID func() string) vegeta.Targeter {
	url := base + "/orders"
	return func(t *vegeta.Target) error {
		id := newID()
		*t = vegeta.Target{
			Method: http.MethodPost,
			URL:    url,
			Body:   fmt.Appendf(nil, `{"reference":"load-%s","item":"load","amount_cents":100}`, id),
			Header: http.Header{
				"Content-Type":    {"application/json"},
				"Authorization":   {"Bearer " + tenant},
				"Idempotency-Key": {id},
			},
		}
		return nil
	}
}

// Cell is one point of the curve: a store, the ledger on or off, and a
// number of concurrent clients.
type Cell struct {
	Store   string
	Ledger  bool
	Clients int
	// MaxRate is the probe's rate: successful creates per second in the
	// closed loop.
	MaxRate float64
	// Rate is the measure's rate of successful creates per second, and
	// P50 and P99 the latencies of its requests.
	Rate     float64
	P50, P99 time.Duration
	// Requests and Errors count the measure's requests and those that
	// failed (a transport error or any status but 201).
	Requests, Errors int
	// Cores is the CPU time the topology and the load generator used
	// during the measure over its wall time: how many of the machine's
	// cores the cell kept busy (0 when not measured).
	Cores float64
	// GeneratorCores is the load generator's own share of Cores.
	GeneratorCores float64
	// CPUPerRequest is that CPU time over the measure's requests.
	CPUPerRequest time.Duration
	// FlushesPerRequest is the store's WAL flushes during the measure
	// over its requests, or -1 when the store does not count them. Below
	// the commits a request makes, commits share flushes (group commit).
	FlushesPerRequest float64
}

// Sample is what a cell reads of the machine before and after its
// measure: the CPU time used so far by everything it runs, and the
// store's WAL flushes so far (-1: not counted).
type Sample struct {
	// CPU is everything's, Generator the load generator's alone.
	CPU, Generator time.Duration
	Flushes        int64
}

// Tally is the outcome of one attack.
type Tally struct {
	Requests, Errors int
	// Latencies are every request's, sorted.
	Latencies []time.Duration
	Elapsed   time.Duration
	// Metrics are vegeta's own (its HDR plot reads them).
	Metrics vegeta.Metrics
}

// Rate is the successful requests per second.
func (t Tally) Rate() float64 {
	if t.Elapsed <= 0 {
		return 0
	}
	return float64(t.Requests-t.Errors) / t.Elapsed.Seconds()
}

// Quantile is the latency below which a share q of the requests fell
// (nearest rank over every request, no estimate).
func (t Tally) Quantile(q float64) time.Duration {
	n := len(t.Latencies)
	if n == 0 {
		return 0
	}
	i := int(q*float64(n)+0.5) - 1
	return t.Latencies[min(max(i, 0), n-1)]
}

// Attack runs one attack of clients workers for d at rate (0: as fast as
// the answers come back) and tallies it.
func Attack(ctx context.Context, tr vegeta.Targeter, clients int, rate float64, d time.Duration) Tally {
	atk := vegeta.NewAttacker(vegeta.Workers(uint64(clients)), vegeta.MaxWorkers(uint64(clients)),
		vegeta.Connections(clients), vegeta.KeepAlive(true), vegeta.Timeout(30*time.Second))
	pacer := vegeta.ConstantPacer{}
	if rate > 0 {
		pacer = vegeta.ConstantPacer{Freq: max(int(rate), 1), Per: time.Second}
	}
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	var t Tally
	start := time.Now()
	for r := range atk.Attack(tr, pacer, d, "load") {
		t.Requests++
		if r.Error != "" || r.Code != http.StatusCreated {
			t.Errors++
		}
		t.Latencies = append(t.Latencies, r.Latency)
		t.Metrics.Add(r)
	}
	t.Elapsed = time.Since(start)
	t.Metrics.Close()
	slices.Sort(t.Latencies)
	return t
}

// Measure measures one cell: the closed-loop probe for probe, then the
// open loop at Load times its rate for measure; sample is read before
// and after the measure.
func Measure(ctx context.Context, tr vegeta.Targeter, c Cell, probe, measure time.Duration, sample func() Sample) (Cell, Tally) {
	c.MaxRate = Attack(ctx, tr, c.Clients, 0, probe).Rate()
	before := sample()
	t := Attack(ctx, tr, c.Clients, c.MaxRate*Load, measure)
	after := sample()
	c.Rate, c.P50, c.P99 = t.Rate(), t.Quantile(0.50), t.Quantile(0.99)
	c.Requests, c.Errors = t.Requests, t.Errors
	c.FlushesPerRequest = -1
	if t.Elapsed > 0 && t.Requests > 0 {
		used := after.CPU - before.CPU
		c.Cores = used.Seconds() / t.Elapsed.Seconds()
		c.GeneratorCores = (after.Generator - before.Generator).Seconds() / t.Elapsed.Seconds()
		c.CPUPerRequest = used / time.Duration(t.Requests)
		if before.Flushes >= 0 && after.Flushes >= 0 {
			c.FlushesPerRequest = float64(after.Flushes-before.Flushes) / float64(t.Requests)
		}
	}
	return c, t
}

package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// getOrder is the idempotent operation every call makes.
var getOrder = idemrt.Operation{ID: "getOrder", Method: "GET", Path: "/orders/{id}",
	Safety: idemrt.Idempotent, Retryable: idemrt.DefaultRetryable}

// variant is one client setting.
type variant struct {
	name  string
	hedge *idemrt.HedgePolicy
}

// result is one variant's measurement.
type result struct {
	name                string
	calls, failed       int
	requests            int64
	firsts              int64
	hedges, retries     int64
	p50, p99, p999, max time.Duration
}

// counter counts the sends of each kind an observer sees.
type counter struct{ firsts, hedges, retries atomic.Int64 }

func (c *counter) ObserveAttempt(_ context.Context, a idemrt.Attempt) {
	switch a.Reason {
	case idemrt.ReasonHedge:
		c.hedges.Add(1)
	case idemrt.ReasonFirst:
		c.firsts.Add(1)
	default:
		c.retries.Add(1)
	}
}

// runTail runs the heavy-tail scenario for each variant, one after the
// other, each against a fresh server drawing the same slow requests.
func runTail(cfg config) []result {
	variants := []variant{
		{"unhedged", nil},
		{"hedged, After " + cfg.after.String(), &idemrt.HedgePolicy{After: cfg.after, MaxAttempts: cfg.hedgeInFlight}},
		{"hedged, After 0 (recent p95)", &idemrt.HedgePolicy{MaxAttempts: cfg.hedgeInFlight}},
	}
	return together(cfg, variants, 0, cfg.calls, nil)
}

// together runs the variants at the same time, each against its own
// server: on a shared machine, whatever else runs slows them alike.
func together(cfg config, variants []variant, outage time.Duration, calls int, extra [][]idemrt.Option) []result {
	out := make([]result, len(variants))
	var wg sync.WaitGroup
	for i, v := range variants {
		var opts []idemrt.Option
		if extra != nil {
			opts = extra[i]
		}
		wg.Go(func() {
			srv := newServer(cfg, outage, uint64(i))
			defer srv.Close()
			out[i] = load(cfg, srv, v, calls, opts)
		})
	}
	wg.Wait()
	return out
}

// load sends calls at cfg.rate, each in its own goroutine, and measures
// each call's latency.
func load(cfg config, srv *server, v variant, calls int, extra []idemrt.Option) result {
	tr := &http.Transport{MaxIdleConnsPerHost: 512, MaxIdleConns: 512}
	defer tr.CloseIdleConnections()
	cnt := &counter{}
	opts := append([]idemrt.Option{idemrt.WithHTTPClient(&http.Client{Transport: tr}), idemrt.WithObserver(cnt)}, extra...)
	if v.hedge != nil {
		opts = append(opts, idemrt.WithHedging(*v.hedge))
	}
	r := idemrt.NewRunner(opts...)
	lat := make([]time.Duration, calls)
	var failed atomic.Int64
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(cfg.rate)
	start := time.Now()
	for n := range calls {
		time.Sleep(time.Until(start.Add(time.Duration(n) * interval)))
		wg.Go(func() {
			t0 := time.Now()
			if err := call(r, srv.URL); err != nil {
				failed.Add(1)
			}
			lat[n] = time.Since(t0)
		})
	}
	wg.Wait()
	return summarize(v.name, lat, int(failed.Load()), srv.requests.Load(), cnt)
}

// call makes one GET and reads its answer.
func call(r *idemrt.Runner, base string) error {
	u, err := urlOf(base + "/orders/ord_7f3a9c")
	if err != nil {
		return err
	}
	resp, err := r.Do(context.Background(), &getOrder, &idemrt.Request{Method: "GET", URL: u})
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// summarize sorts the latencies into the result's quantiles.
func summarize(name string, lat []time.Duration, failed int, requests int64, cnt *counter) result {
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	return result{name: name, calls: len(lat), failed: failed, requests: requests,
		firsts: cnt.firsts.Load(), hedges: cnt.hedges.Load(), retries: cnt.retries.Load(),
		p50: q(0.50), p99: q(0.99), p999: q(0.999), max: lat[len(lat)-1]}
}

// runOutage runs the outage for the hedged client with the budget alone
// and with the adaptive throttle too.
func runOutage(cfg config) []result {
	h := &idemrt.HedgePolicy{After: cfg.after, MaxAttempts: cfg.hedgeInFlight}
	variants := []variant{{"hedged, budget alone (throttle off)", h}, {"hedged, budget and adaptive throttle", h}}
	extra := [][]idemrt.Option{{idemrt.WithoutAdaptiveThrottle()}, nil}
	return together(cfg, variants, cfg.outage, cfg.outageCalls, extra)
}

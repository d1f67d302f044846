package main

import (
	"context"
	"fmt"
	"net/http"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// call is the measurement of one logical call.
type call struct {
	// end is when the call returned, from the run's start.
	end, latency time.Duration
	attempts     int32
	err          error
}

// attemptsKey carries a call's attempt counter to the transport.
type attemptsKey struct{}

// counting counts each call's attempts, and the retries (attempts after a
// call's first) that left in every 100 ms since start.
type counting struct {
	next    http.RoundTripper
	start   time.Time
	retries []atomic.Int64
}

func (t *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if n, ok := r.Context().Value(attemptsKey{}).(*atomic.Int32); ok && n.Add(1) > 1 {
		if i := int(time.Since(t.start) / bucket); i < len(t.retries) {
			t.retries[i].Add(1)
		}
	}
	return t.next.RoundTrip(r)
}

// runOnce starts a server and the fleet, waits for every call to end and
// summarizes the run.
func runOnce(cfg config) (outcome, error) {
	// Every call ends within its 10 s deadline after the last one starts.
	horizon := cfg.duration + 11*time.Second
	tg, err := start(cfg, horizon)
	if err != nil {
		return outcome{}, err
	}
	defer tg.close()
	cpu0 := cpuTime()
	count := &counting{start: tg.start, retries: make([]atomic.Int64, horizon/bucket+1)}
	interval := time.Duration(float64(cfg.clients) / (cfg.factor * cfg.capacity()) * float64(time.Second))
	perClient := int(cfg.duration / interval)
	if perClient < 1 {
		return outcome{}, fmt.Errorf("each client starts a call every %v, longer than -duration %v", interval, cfg.duration)
	}
	calls := make([]call, cfg.clients*perClient)
	var wg sync.WaitGroup
	var transports []*http.Transport
	for i := range cfg.clients {
		// Two connections a client, as a small service instance would keep:
		// 1,000 clients then hold at most 2,000 loopback connections.
		tr := &http.Transport{MaxConnsPerHost: 2, MaxIdleConnsPerHost: 2}
		transports = append(transports, tr)
		client, err := orders.NewClient(tg.url, idemrt.WithHTTPClient(&http.Client{
			Transport: &counting{next: tr, start: count.start, retries: count.retries}}))
		if err != nil {
			return outcome{}, err
		}
		// Clients start their calls in turn, interval/clients apart, so the
		// fleet's first attempts arrive at an even rate.
		phase := interval * time.Duration(i) / time.Duration(cfg.clients)
		wg.Go(func() {
			pprof.Do(context.Background(), pprof.Labels("side", "fleet"), func(context.Context) {
				fire(client, tg.start, phase, interval, calls[i*perClient:(i+1)*perClient], &wg)
			})
		})
	}
	wg.Wait()
	for _, tr := range transports {
		tr.CloseIdleConnections()
	}
	fleetCPU := cpuTime() - cpu0
	counts, serverCPU, err := tg.finish()
	if err != nil {
		return outcome{}, err
	}
	o := summarize(cfg, calls, counts, count.retries)
	o.cpu, o.serverCPU = fleetCPU+serverCPU, serverCPU
	return o, nil
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fire starts len(out) calls of one client, interval apart from start+phase,
// each in its own goroutine (open loop: a call waiting on Retry-After does
// not hold back the next).
func fire(c *orders.Client, start time.Time, phase, interval time.Duration, out []call, wg *sync.WaitGroup) {
	for n := range out {
		time.Sleep(time.Until(start.Add(phase + time.Duration(n)*interval)))
		wg.Go(func() { out[n] = one(c, start) })
	}
}

// one makes a call under the interactive deadline; start is the run's.
func one(c *orders.Client, start time.Time) call {
	var n atomic.Int32
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), attemptsKey{}, &n), 10*time.Second)
	defer cancel()
	began := time.Now()
	_, err := c.GetHealth(ctx)
	end := time.Now()
	return call{end: end.Sub(start), latency: end.Sub(began), attempts: n.Load(), err: err}
}

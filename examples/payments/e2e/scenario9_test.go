package e2e

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idemgen/idemgen/examples/payments/client"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// Scenario 9: three server processes share one PostgreSQL database behind a
// round-robin reverse proxy, as several instances of a service do behind a
// load balancer. The ledger's promise has to hold across processes, where
// no in-memory lock can help: only the database decides.
func TestScenario9ThreeProcessesOnePostgres(t *testing.T) {
	t.Run("same key on all three at once", sameKeyOnThreeProcesses)
	t.Run("process killed after reserving", killedProcessRetriedElsewhere)
}

// rrProxy is a round-robin reverse proxy on loopback that skips processes
// that have exited, as a load balancer's health check would.
type rrProxy struct {
	procs []*proc
	next  atomic.Uint64
	hits  []atomic.Int64
	// failed counts requests the proxy answered 502 (the process died).
	failed atomic.Int64
	url    string
}

func startProxy(t *testing.T, procs ...*proc) *rrProxy {
	t.Helper()
	p := &rrProxy{procs: procs, hits: make([]atomic.Int64, len(procs))}
	tr := &http.Transport{MaxIdleConnsPerHost: 100}
	rp := &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			target, _ := url.Parse(p.procs[p.pick()].url)
			pr.SetURL(target)
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			p.failed.Add(1)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(func() { srv.Close(); tr.CloseIdleConnections() })
	p.url = srv.URL
	return p
}

// pick returns the next live process in turn (the next one at all when
// none is alive: the proxy then answers 502).
func (p *rrProxy) pick() int {
	n := uint64(len(p.procs))
	i := p.next.Add(1) - 1
	for range n {
		if p.procs[i%n].alive() {
			break
		}
		i = p.next.Add(1) - 1
	}
	p.hits[i%n].Add(1)
	return int(i % n)
}

func (p *rrProxy) hitCounts() []int64 {
	out := make([]int64, len(p.hits))
	for i := range p.hits {
		out[i] = p.hits[i].Load()
	}
	return out
}

// sameKeyOnThreeProcesses: 30 callers send one key at the same moment; the
// proxy spreads them over the three processes. One execution, one order,
// one charge, one event; every caller gets that order or "in progress".
func sameKeyOnThreeProcesses(t *testing.T) {
	start := time.Now()
	b := postgresBackend(t)
	// The execution is slowed down (300ms after the reservation), so the
	// other processes really meet the key in progress.
	env := []string{"PAYMENTS_TEST_PAUSE_AFTER_RESERVE=300ms"}
	procs := []*proc{startServer(t, b, env), startServer(t, b, env), startServer(t, b, env)}
	px := startProxy(t, procs...)
	const n = 30
	ids, errs := make([]string, n), make([]error, n)
	clients := make([]*client.Client, n)
	for i := range n {
		clients[i] = newClientAt(t, px.url, "alice")
	}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-gate
			o, err := clients[i].CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s9-key"})
			if err == nil {
				ids[i] = o.ID
			}
			errs[i] = err
		})
	}
	close(gate)
	wg.Wait()
	hits := px.hitCounts()
	if px.failed.Load() != 0 {
		t.Errorf("the proxy lost %d requests", px.failed.Load())
	}
	for i, h := range hits {
		if h == 0 {
			t.Fatalf("process %d received no request (hits %v): the scenario did not span three processes", i, hits)
		}
	}
	b.wantRows(t, "alice", 1, 1, 1)
	stored, ok, busy := oneOrderOutcomes(t, b, "alice", ids, errs)
	if n := b.count(t, `SELECT COUNT(*) FROM idem_ledger WHERE idem_key = 's9-key' AND state = 'completed'`); n != 1 {
		t.Errorf("%d completed ledger rows for the key, want 1", n)
	}
	// Three relays deliver the one event; the consumer applies it once.
	b.waitNotified(t, "alice", 1)
	t.Logf("requests per process %v; %d callers got order %s, %d in progress; %v", hits, ok, stored, busy, time.Since(start).Round(time.Millisecond))
}

// killedProcessRetriedElsewhere: the first process reserves a key and is
// SIGKILLed before it commits. Within the lease the others answer "in
// progress" and execute nothing; after it, the retry through the proxy is
// served by another process, once.
func killedProcessRetriedElsewhere(t *testing.T) {
	start := time.Now()
	b := postgresBackend(t)
	const lease = 3 * time.Second
	args := []string{"-lease", lease.String(), "-sweep-every", "0"}
	// Only the first process stalls after reserving; the proxy's first
	// request goes to it.
	procs := []*proc{
		startServer(t, b, []string{"PAYMENTS_TEST_PAUSE_AFTER_RESERVE=1m"}, args...),
		startServer(t, b, nil, args...),
		startServer(t, b, nil, args...),
	}
	px := startProxy(t, procs...)
	c := newClientAt(t, px.url, "alice")
	params := client.CreateOrderParams{IdempotencyKey: "s9-kill"}
	done := make(chan error, 1)
	go func() {
		_, err := c.CreateOrder(bg(), book, params, idemrt.NoRetry())
		done <- err
	}()
	waitFor(t, func() bool {
		return b.count(t, `SELECT COUNT(*) FROM idem_ledger WHERE idem_key = 's9-kill' AND state = 'in_progress'`) == 1
	})
	procs[0].kill(syscall.SIGKILL)
	if err := <-done; err == nil || idemrt.KeyOf(err) != "s9-kill" {
		t.Fatalf("the call to the killed process returned %v; want an error carrying the key", err)
	}
	b.wantRows(t, "alice", 0, 0, 0)
	var leaseEnd int64
	b.db.QueryRow(`SELECT lease_expires FROM idem_ledger WHERE idem_key = 's9-kill'`).Scan(&leaseEnd)
	if time.Until(time.Unix(0, leaseEnd)) > time.Second {
		// Still leased: another process says "in progress" and runs nothing.
		_, err := c.CreateOrder(bg(), book, params, idemrt.NoRetry())
		if !errors.Is(err, idemrt.ErrInProgress) {
			t.Errorf("retry within the lease: %v, want in-progress", err)
		}
		b.wantRows(t, "alice", 0, 0, 0)
	}
	time.Sleep(time.Until(time.Unix(0, leaseEnd)) + 50*time.Millisecond)
	o, err := c.CreateOrder(bg(), book, params)
	if err != nil {
		t.Fatalf("retry after the lease: %v", err)
	}
	again, err := c.CreateOrder(bg(), book, params)
	if err != nil || again.ID != o.ID {
		t.Fatalf("second retry = %+v, %v; want order %s", again, err, o.ID)
	}
	b.wantRows(t, "alice", 1, 1, 1)
	if n := b.count(t, `SELECT COUNT(*) FROM orders WHERE id = ? AND created_at >= ?`, o.ID, leaseEnd); n != 1 {
		t.Errorf("order %s was created before the killed execution's lease ended", o.ID)
	}
	if hits := px.hitCounts(); hits[0] != 1 || hits[1]+hits[2] < 2 || px.failed.Load() != 1 {
		t.Errorf("requests per process %v, %d lost: want the killed one to have seen only the first, lost",
			hits, px.failed.Load())
	}
	b.waitNotified(t, "alice", 1)
	t.Logf("requests per process %v; %v", px.hitCounts(), time.Since(start).Round(time.Millisecond))
}

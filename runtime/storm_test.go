package runtime

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// outage is a loopback server that answers 503 to everything and counts
// the requests it received.
func outage(t testing.TB) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// storm runs calls concurrent calls of op through r and returns how many
// ended with ErrBudgetExhausted.
func storm(t testing.TB, r *Runner, url string, calls int, opts ...CallOption) int {
	var exhausted atomic.Int64
	var wg sync.WaitGroup
	jobs := make(chan struct{})
	for range 16 {
		wg.Go(func() {
			for range jobs {
				req := &Request{Method: "PUT", URL: mustURL(t, url+"/things/1"), Body: []byte("x")}
				_, err := r.Do(context.Background(), &idempotentOp, req, opts...)
				if errors.Is(err, ErrBudgetExhausted) {
					exhausted.Add(1)
				} else if err == nil {
					t.Error("a call succeeded against a total outage")
				}
			}
		})
	}
	for range calls {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	return int(exhausted.Load())
}

// TestAmplificationBounded: 1,000 calls against a total outage (every answer
// 503), counted at the server, make fewer than 1.1 attempts per call with the
// default budgets: once the bucket is drained each call makes one attempt.
// The clock is frozen so that only the budget and the attempt limit stop
// retries (waits would otherwise be the real backoff). One runner is one
// process here: the adaptive throttle, off, is measured by
// TestAdaptiveThrottleFleetOutage.
func TestAmplificationBounded(t *testing.T) {
	for _, class := range []Class{Interactive, Background} {
		srv, hits := outage(t)
		r := NewRunner(WithClock(&fakeClock{frozen: true}), WithoutAdaptiveThrottle())
		const calls = 1000
		exhausted := storm(t, r, srv.URL, calls, WithClass(class))
		got := hits.Load()
		t.Logf("%v: %d calls -> %d attempts at the server (%.3f per call), %d stopped by the budget",
			class, calls, got, float64(got)/calls, exhausted)
		if got >= calls*11/10 {
			t.Errorf("%v: %d attempts for %d calls: retries amplify the outage", class, got, calls)
		}
		if got <= calls || exhausted < calls*9/10 {
			t.Errorf("%v: %d attempts, %d exhausted: the budget should allow a few retries, then stop them", class, got, exhausted)
		}
		if r.BudgetLeft(class) >= 1 {
			t.Errorf("%v: bucket not drained: %v", class, r.BudgetLeft(class))
		}
	}
}

// lockedRand is a seeded source safe for concurrent calls.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

// TestRetriesSpread: 200 calls that fail together retry at spread-out times,
// not in lockstep: waits cover the whole backoff range with few collisions.
func TestRetriesSpread(t *testing.T) {
	clk := &fakeClock{frozen: true}
	src := &lockedRand{r: rand.New(rand.NewPCG(7, 11))}
	d := &fakeDoer{script: []step{answer(503)}}
	p := Policy{MaxAttempts: 2, BaseDelay: time.Second, MaxDelay: time.Minute}
	r := NewRunner(WithHTTPClient(d), WithClock(clk), WithRandom(src.Float64), WithPolicy(Interactive, p),
		WithBudget(Interactive, Budget{Unlimited: true}), WithoutAdaptiveThrottle())
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() { doCall(t, r, &idempotentOp, "") })
	}
	wg.Wait()
	waits := clk.Sleeps()
	if len(waits) != 200 {
		t.Fatalf("%d waits", len(waits))
	}
	distinct := map[time.Duration]bool{}
	var quarters [4]int
	for _, w := range waits {
		distinct[w] = true
		quarters[int(w*4/time.Second)]++
	}
	if len(distinct) < 195 {
		t.Errorf("only %d distinct waits of 200: retries are synchronised", len(distinct))
	}
	for i, q := range quarters {
		if q < 30 {
			t.Errorf("quarter %d of the backoff range holds %d of 200 waits: not spread", i, q)
		}
	}
}

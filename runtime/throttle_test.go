package runtime

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// throttleEpoch is the fake time the throttle's unit tests start at.
var throttleEpoch = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// feed records n answers at now, accepted or not.
func feed(t *throttle, now time.Time, n int, accepted bool) {
	for range n {
		t.record(now, accepted)
	}
}

// TestThrottleFormula: the rejection probability is (requests - K*accepts)
// / (requests + 8), zero below 20 requests, capped at 0.9.
func TestThrottleFormula(t *testing.T) {
	cases := []struct {
		k                 float64
		failures, accepts int
		want              float64
	}{
		{2, 19, 0, 0},                   // too little history
		{2, 30, 0, 30.0 / 38},           // a failing host
		{2, 1000, 0, throttleMaxReject}, // capped: probes still go out
		{2, 25, 25, 0},                  // half accepted: K 2 tolerates it
		{2, 40, 20, 0},                  // 60 requests, 20 accepts: 60 - 40 over 68
		{1, 10, 30, 10.0 / 48},          // K 1 throttles on any failure
		{3, 40, 20, 0},                  // K 3 tolerates two failures in three
	}
	cases[4].want = 20.0 / 68
	for _, c := range cases {
		th := newThrottle(c.k, DefaultThrottleWindow)
		feed(th, throttleEpoch, c.failures, false)
		feed(th, throttleEpoch, c.accepts, true)
		if got := th.rejectProbability(); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("K %v, %d failures, %d accepts: p = %v, want %v", c.k, c.failures, c.accepts, got, c.want)
		}
	}
}

// TestThrottleRejectionsCount: a rejected call counts as a request, so a
// host that accepts nothing is throttled harder with every rejection, and
// the draw decides: a draw at or above p passes.
func TestThrottleRejectionsCount(t *testing.T) {
	th := newThrottle(2, DefaultThrottleWindow)
	feed(th, throttleEpoch, 30, false)
	p := th.rejectProbability()
	if !th.allow(throttleEpoch, func() float64 { return p }) {
		t.Fatalf("a draw of %v was rejected at p %v", p, p)
	}
	if th.allow(throttleEpoch, func() float64 { return p - 0.01 }) {
		t.Fatalf("a draw below p passed")
	}
	if th.requests != 31 || th.accepts != 0 {
		t.Fatalf("after one rejection: %d requests, %d accepts; want 31, 0", th.requests, th.accepts)
	}
	drew := false
	healthy := newThrottle(2, DefaultThrottleWindow)
	feed(healthy, throttleEpoch, 100, true)
	if !healthy.allow(throttleEpoch, func() float64 { drew = true; return 0 }) || drew {
		t.Fatalf("a healthy host drew a random number or rejected a call")
	}
}

// TestThrottleWindowForgets: history older than the window is forgotten
// slice by slice; a clock that jumps back more than a window starts anew.
func TestThrottleWindowForgets(t *testing.T) {
	th := newThrottle(2, 10*time.Second)
	feed(th, throttleEpoch, 40, false)
	feed(th, throttleEpoch.Add(5*time.Second), 40, true)
	if th.rejectProbability() != 0 {
		t.Fatalf("40 failures, 40 accepts: p = %v, want 0", th.rejectProbability())
	}
	th.advance(throttleEpoch.Add(10*time.Second + 100*time.Millisecond))
	if th.requests != 40 || th.accepts != 40 {
		t.Fatalf("after the failures left the window: %d requests, %d accepts, want 40, 40", th.requests, th.accepts)
	}
	if th.idle(throttleEpoch.Add(14 * time.Second)) {
		t.Fatal("idle while accepts are in the window")
	}
	if !th.idle(throttleEpoch.Add(16 * time.Second)) {
		t.Fatal("not idle a window after the last request")
	}
	feed(th, throttleEpoch.Add(time.Minute), 30, false)
	th.advance(throttleEpoch)
	if th.requests != 0 {
		t.Fatalf("a clock back by a minute kept %d requests", th.requests)
	}
}

// TestThrottleSettings: K and the window are clamped to sane values and the
// clients with the same settings share one throttle per host.
func TestThrottleSettings(t *testing.T) {
	for _, c := range []struct {
		opt  Option
		want throttleSettings
	}{
		{WithAdaptiveThrottle(math.NaN()), throttleSettings{k: 2, window: DefaultThrottleWindow}},
		{WithAdaptiveThrottle(math.Inf(1)), throttleSettings{k: 2, window: DefaultThrottleWindow}},
		{WithAdaptiveThrottle(0.1), throttleSettings{k: 1, window: DefaultThrottleWindow}},
		{WithAdaptiveThrottle(3), throttleSettings{k: 3, window: DefaultThrottleWindow}},
		{WithAdaptiveThrottleWindow(-time.Second), throttleSettings{k: 2, window: DefaultThrottleWindow}},
		{WithAdaptiveThrottleWindow(30 * time.Second), throttleSettings{k: 2, window: 30 * time.Second}},
		{WithoutAdaptiveThrottle(), throttleSettings{off: true, k: 2, window: DefaultThrottleWindow}},
	} {
		if got := NewRunner(c.opt).throttles.settings; got != c.want {
			t.Errorf("settings %+v, want %+v", got, c.want)
		}
	}
	u := mustURL(t, "https://api.settings.test/x")
	a, b := NewRunner(), NewRunner()
	if ta, tb := a.throttles.forURL(u, throttleEpoch), b.throttles.forURL(u, throttleEpoch); ta == nil || ta != tb {
		t.Fatal("two clients of one host do not share its throttle")
	}
	other := NewRunner(WithAdaptiveThrottle(3)).throttles.forURL(u, throttleEpoch)
	if other == a.throttles.forURL(u, throttleEpoch) {
		t.Fatal("clients with another K share a throttle")
	}
	if NewRunner(WithoutAdaptiveThrottle()).throttles.forURL(u, throttleEpoch) != nil {
		t.Fatal("a client without the throttle found one")
	}
}

// TestThrottleTableBounded: hosts chosen by whoever controls the URLs (a
// server's links, a caller's base URLs) cannot grow the table past its
// bound; idle throttles make room.
func TestThrottleTableBounded(t *testing.T) {
	r := NewRunner(WithAdaptiveThrottleWindow(time.Second + 7))
	now := time.Now()
	for i := range maxThrottledHosts + 50 {
		u := mustURL(t, "http://h"+itoa(i)+".bounded.test/")
		if th := r.throttles.forURL(u, now); th != nil {
			th.record(now, false)
		}
	}
	throttleTable.mu.Lock()
	n := len(throttleTable.m)
	throttleTable.mu.Unlock()
	if n > maxThrottledHosts {
		t.Fatalf("%d throttles in the table, bound %d", n, maxThrottledHosts)
	}
	later := now.Add(2 * time.Second)
	if th := r.throttles.forURL(mustURL(t, "http://fresh.bounded.test/"), later); th == nil {
		t.Fatal("no room for a new host once the others went idle")
	}
}

// TestThrottleTableEvictsTheIdlest (T4): 1,024 hosts the process has just
// used fill the table, none of them idle; then a host in a total outage
// gets 1,000 calls from 100 clients. The new host takes the place of the
// idlest throttle, so its calls are throttled as any host's are: at most
// 1.10 attempts per call reach it, where the budgets alone let about 2
// through, and most calls are refused before their first send (when a full
// table gave a new host no throttle, every call reached it).
func TestThrottleTableEvictsTheIdlest(t *testing.T) {
	window := 5*time.Second + 13 // isolates these throttles from other tests'
	t.Cleanup(func() { forgetThrottles(window) })
	filler := NewRunner(WithAdaptiveThrottleWindow(window))
	for i := range maxThrottledHosts {
		u := mustURL(t, "http://h"+itoa(i)+".full.test/")
		if th := filler.throttles.forURL(u, throttleEpoch.Add(time.Duration(i)*time.Millisecond)); th != nil {
			th.record(throttleEpoch.Add(time.Duration(i)*time.Millisecond), false)
		}
	}
	srv := newFleetServer(t)
	srv.down.Store(true)
	runners := fleet(100, &fakeClock{frozen: true, now: throttleEpoch.Add(2 * time.Second)}, window)
	const calls = 1000
	unsent := 0
	for n := range calls {
		req := &Request{Method: "POST", URL: mustURL(t, srv.URL+"/payments"), Body: []byte(`{}`)}
		_, err := runners[n%100].Do(context.Background(), &keyedOp, req)
		srv.mu.Lock()
		if errors.Is(err, ErrThrottled) && !srv.keys[KeyOf(err)] {
			unsent++
		}
		srv.mu.Unlock()
	}
	perCall := float64(srv.attempts.Load()) / calls
	if perCall > 1.10 || unsent < calls/2 {
		t.Errorf("a new host in a full table: %.2f attempts per call, %d of %d calls refused before their first send; "+
			"want at most 1.10, and at least half", perCall, unsent, calls)
	}
	if n := throttleCount(); n > maxThrottledHosts {
		t.Errorf("%d throttles in the table, bound %d", n, maxThrottledHosts)
	}
}

// forgetThrottles removes the throttles of window from the table.
func forgetThrottles(window time.Duration) {
	throttleTable.mu.Lock()
	defer throttleTable.mu.Unlock()
	for k := range throttleTable.m {
		if k.window == window {
			delete(throttleTable.m, k)
		}
	}
}

// throttleCount is the number of throttles in the table.
func throttleCount() int {
	throttleTable.mu.Lock()
	defer throttleTable.mu.Unlock()
	return len(throttleTable.m)
}

// itoa avoids strconv in one helper.
func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// fleetServer is a loopback server that answers 503 while down and counts
// the attempts it received and the keys it saw.
type fleetServer struct {
	*httptest.Server
	down     atomic.Bool
	attempts atomic.Int64
	mu       sync.Mutex
	keys     map[string]bool
}

func newFleetServer(t *testing.T) *fleetServer {
	s := &fleetServer{keys: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.attempts.Add(1)
		s.mu.Lock()
		s.keys[r.Header.Get("Idempotency-Key")] = true
		s.mu.Unlock()
		if s.down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// fleet is n clients of one process, each with its own default budget, on
// one clock and one seeded random source; window isolates their throttle
// from other tests'.
func fleet(n int, clk Clock, window time.Duration, opts ...Option) []*Runner {
	src := &lockedRand{r: rand.New(rand.NewPCG(3, 5))}
	out := make([]*Runner, n)
	for i := range out {
		base := []Option{WithClock(clk), WithRandom(src.Float64), WithPolicy(Interactive, quickPolicy()),
			WithAdaptiveThrottleWindow(window)}
		out[i] = NewRunner(append(base, opts...)...)
	}
	return out
}

// TestAdaptiveThrottleFleetOutage: 100 clients of one process against a
// host failing every call make at most 1.10 attempts per call, where their
// budgets alone let through about 2; every call the throttle rejected
// before its first send left its key unspent (the server never saw it).
func TestAdaptiveThrottleFleetOutage(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   []Option
		within func(perCall float64) bool
	}{
		{"throttle", nil, func(p float64) bool { return p <= 1.10 }},
		{"budgets only", []Option{WithoutAdaptiveThrottle()}, func(p float64) bool { return p > 1.5 }},
	} {
		srv := newFleetServer(t)
		srv.down.Store(true)
		runners := fleet(100, &fakeClock{frozen: true, now: throttleEpoch}, 5*time.Second+11, c.opts...)
		const calls = 1000
		var throttled, unspent atomic.Int64
		var next atomic.Int64
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				for n := next.Add(1) - 1; n < calls; n = next.Add(1) - 1 {
					req := &Request{Method: "POST", URL: mustURL(t, srv.URL+"/payments"), Body: []byte(`{}`)}
					_, err := runners[n%100].Do(context.Background(), &keyedOp, req)
					if errors.Is(err, ErrThrottled) {
						throttled.Add(1)
						srv.mu.Lock()
						if !srv.keys[KeyOf(err)] {
							unspent.Add(1)
						}
						srv.mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		perCall := float64(srv.attempts.Load()) / calls
		t.Logf("%s: %d calls, %d attempts at the server (%.2f per call), %d throttled (%d before any send)",
			c.name, calls, srv.attempts.Load(), perCall, throttled.Load(), unspent.Load())
		if !c.within(perCall) {
			t.Errorf("%s: %.2f attempts per call", c.name, perCall)
		}
		if c.opts == nil && unspent.Load() < calls/2 {
			t.Errorf("%s: only %d calls rejected before their first send", c.name, unspent.Load())
		}
	}
}

// TestAdaptiveThrottleRecovers: 100 clients make 100 calls a second in all
// (on a fake clock) to a host that fails every call for a minute, then
// recovers. During the outage the host sees at most 1.10 attempts per
// call; within 10 seconds of its recovery every call of a second succeeds
// again (99% of them, the draws being random).
func TestAdaptiveThrottleRecovers(t *testing.T) {
	srv := newFleetServer(t)
	clk := &fakeClock{frozen: true, now: throttleEpoch}
	runners := fleet(100, clk, DefaultThrottleWindow+13)
	const rate, outage, after = 100, 60, 20
	srv.down.Store(true)
	var perSecond [after]int
	for n := range rate * (outage + after) {
		clk.mu.Lock()
		clk.now = throttleEpoch.Add(time.Duration(n) * time.Second / rate)
		clk.mu.Unlock()
		if n == rate*outage {
			t.Logf("outage: %d calls, %d attempts at the server (%.3f per call)",
				n, srv.attempts.Load(), float64(srv.attempts.Load())/float64(n))
			if got := float64(srv.attempts.Load()) / float64(n); got > 1.10 {
				t.Errorf("%.3f attempts per call during the outage", got)
			}
			srv.down.Store(false)
		}
		req := &Request{Method: "PUT", URL: mustURL(t, srv.URL+"/things/1"), Body: []byte(`{}`)}
		_, err := runners[n%100].Do(context.Background(), &idempotentOp, req)
		if n >= rate*outage && err == nil {
			perSecond[(n-rate*outage)/rate]++
		}
	}
	t.Logf("calls that succeeded, second by second after the recovery: %v", perSecond)
	recovered := -1
	for s, ok := range perSecond {
		if ok >= rate*99/100 {
			recovered = s
			break
		}
	}
	if recovered < 0 || recovered >= 10 {
		t.Fatalf("back to full throughput in second %d after the recovery (want within 10)", recovered)
	}
	for s := recovered; s < after; s++ {
		if perSecond[s] < rate*95/100 {
			t.Errorf("second %d after the recovery: %d of %d calls succeeded", s, perSecond[s], rate)
		}
	}
}

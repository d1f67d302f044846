package main

import (
	"testing"
	"time"

	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestOutageStaysWithinTheBudget: under an outage (every request answered
// 503 after 20 ms, hedges due after 5 ms), forty hedged calls make at most
// the budget's capacity of extra requests, hedges and retries together,
// with the adaptive throttle off and on; the server's count agrees with the
// clients' records.
func TestOutageStaysWithinTheBudget(t *testing.T) {
	cfg := config{rate: 1000, base: time.Millisecond, factor: 1, after: 5 * time.Millisecond,
		hedgeInFlight: 2, outage: 20 * time.Millisecond, outageCalls: 40, seed: 1}
	capacity := int64(idemrt.DefaultBudget(idemrt.Interactive).Capacity)
	for _, r := range runOutage(cfg) {
		extra := r.requests - r.firsts
		if r.hedges+r.retries > capacity || extra > capacity {
			t.Errorf("%s: %d hedges and %d retries, %d extra requests; the budget pays for %d", r.name, r.hedges, r.retries, extra, capacity)
		}
		if r.failed != r.calls {
			t.Errorf("%s: %d of %d calls failed during a total outage", r.name, r.failed, r.calls)
		}
	}
}

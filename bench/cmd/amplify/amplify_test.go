package main

import (
	"strings"
	"testing"
	"time"

	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// testConfig keeps the real defaults' attempt counts but divides every
// delay by 1000 (backoff waits of microseconds to a few milliseconds), so
// the counts are exact and the test takes well under a second. The
// throttle's window stays whole (4 s): scaled it would be 4 ms, and on a
// loaded machine requests that far apart would never fill it.
var testConfig = config{calls: 40, workers: 4, scale: 1000, throttleWindow: idemrt.DefaultThrottleWindow,
	deadline: 10000 * time.Second, seed: 1}

func byClient(t *testing.T, sc scenario) map[string]outcome {
	t.Helper()
	m := map[string]outcome{}
	for _, c := range contenders {
		m[c.name] = runOne(testConfig, sc, c)
	}
	return m
}

// TestOutageAttemptCounts pins each strategy's multiplication under a total
// outage: the budget caps idemgen's extra attempts at its capacity (10) and
// the throttle stops more, the attempt cap alone gives 3, go-retryablehttp's defaults 5, and three
// nested layers of 3 give 27. A fleet of 100 clients making fewer calls
// each than their budgets can pay for retries is bounded by the cap alone,
// unless the process's adaptive throttle, which they share, is on.
func TestOutageAttemptCounts(t *testing.T) {
	got := byClient(t, scenario{"outage", 1})
	calls := int64(testConfig.calls)
	if a := got["idemgen"].attempts; a > calls+10 {
		t.Errorf("idemgen made %d attempts for %d calls, want at most %d", a, calls, calls+10)
	}
	for name, want := range map[string]int64{"idemgen, attempt cap only": 3, "idemgen, 100 clients, throttle off": 3,
		"go-retryablehttp": 5, "nested 3x3x3": 27} {
		if a := got[name].attempts; a != want*calls {
			t.Errorf("%s made %d attempts for %d calls, want %d", name, a, calls, want*calls)
		}
	}
	// The fleet's shared throttle engages after 20 failed requests and
	// then rejects most calls before they are sent.
	if a := got["idemgen, 100 clients"].attempts; a >= 2*calls {
		t.Errorf("the fleet with its throttle made %d attempts for %d calls, want fewer than %d", a, calls, 2*calls)
	}
	for name, o := range got {
		if o.succeeded != 0 || o.inDeadline != testConfig.calls {
			t.Errorf("%s: %d succeeded, %d within deadline; want 0 and all", name, o.succeeded, o.inDeadline)
		}
	}
	if f := got["idemgen"].failures; f["budget"]+f["throttled"] < testConfig.calls-10 {
		t.Errorf("idemgen: %v calls stopped by the budget or throttle, want at least %d", f, testConfig.calls-10)
	}
}

// TestHealthyServerOneAttemptEach checks the harness itself: with no
// failures every client makes exactly one attempt per call and succeeds.
func TestHealthyServerOneAttemptEach(t *testing.T) {
	for name, o := range byClient(t, scenario{"healthy", 0}) {
		if o.attempts != int64(o.calls) || o.succeeded != o.calls || len(o.failures) != 0 {
			t.Errorf("%s: %d attempts, %d succeeded, failures %v for %d calls", name, o.attempts, o.succeeded, o.failures, o.calls)
		}
	}
}

func TestTableNamesEveryClientAndReason(t *testing.T) {
	var b strings.Builder
	printTable(&b, testConfig, []outcome{{
		scenario: "outage", client: "idemgen", calls: 4, attempts: 5, attemptsLate: 2,
		inDeadline: 4, failures: map[string]int{"budget": 3, "attempts": 1},
	}})
	want := "| outage | idemgen | 1.25 | 1.00 | 0 | 3 budget, 1 attempts | 4 |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
}

// TestRecoveryScenario runs the open-loop outage-and-recovery scenario
// small (20 calls a second for 20 s of outage and 20 s after, at 1/50): the
// fleets with the throttle send at most 1.10 attempts per call during the
// outage where the budgets alone send more than 1, and the default window
// is back to full throughput within the run.
func TestRecoveryScenario(t *testing.T) {
	rows := runRecovery(recoveryConfig{rate: 20, outage: 20 * time.Second, after: 20 * time.Second, scale: 50})
	var b strings.Builder
	printRecovery(&b, recoveryConfig{rate: 20, outage: 20 * time.Second, after: 20 * time.Second, scale: 50}, rows)
	t.Log(b.String())
	for _, r := range rows[:2] {
		if a := float64(r.outageAttempt) / float64(r.outageCalls); a > 1.10 {
			t.Errorf("%s: %.2f attempts per call during the outage", r.name, a)
		}
	}
	if a := float64(rows[2].outageAttempt) / float64(rows[2].outageCalls); a < 1 {
		t.Errorf("%s: %.2f attempts per call during the outage, want at least 1", rows[2].name, a)
	}
	if rows[0].recoveredAt() < 0 {
		t.Errorf("%s: not back to full throughput within the run: %v", rows[0].name, rows[0].perSecond)
	}
}

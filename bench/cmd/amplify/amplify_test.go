package main

import (
	"strings"
	"testing"
	"time"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

// testConfig keeps the real defaults' attempt counts but divides every
// delay by 1000 (backoff waits of microseconds to a few milliseconds), so
// the counts are exact and the test takes well under a second.
var testConfig = config{calls: 40, workers: 4, scale: 1000, deadline: 10000 * time.Second, seed: 1}

func byClient(t *testing.T, sc scenario) map[string]outcome {
	t.Helper()
	m := map[string]outcome{}
	for _, c := range contenders {
		m[c.name] = runOne(testConfig, sc, c)
	}
	return m
}

// TestOutageAttemptCounts pins each strategy's multiplication under a total
// outage: the budget caps idemgen's extra attempts at its capacity (10),
// the attempt cap alone gives 3, go-retryablehttp's defaults 5, and three
// nested layers of 3 give 27. A fleet of 100 clients making fewer calls
// each than their budgets can pay for retries is bounded by the cap alone.
func TestOutageAttemptCounts(t *testing.T) {
	got := byClient(t, scenario{"outage", 1})
	calls := int64(testConfig.calls)
	if a := got["idemgen"].attempts; a < calls || a > calls+10 {
		t.Errorf("idemgen made %d attempts for %d calls, want between %d and %d", a, calls, calls, calls+10)
	}
	for name, want := range map[string]int64{"idemgen, budget off": 3, "idemgen, 100 clients": 3,
		"go-retryablehttp": 5, "nested 3x3x3": 27} {
		if a := got[name].attempts; a != want*calls {
			t.Errorf("%s made %d attempts for %d calls, want %d", name, a, calls, want*calls)
		}
	}
	for name, o := range got {
		if o.succeeded != 0 || o.inDeadline != testConfig.calls {
			t.Errorf("%s: %d succeeded, %d within deadline; want 0 and all", name, o.succeeded, o.inDeadline)
		}
	}
	if f := got["idemgen"].failures["budget"]; f < testConfig.calls-10 {
		t.Errorf("idemgen: %d calls stopped by the budget, want at least %d", f, testConfig.calls-10)
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

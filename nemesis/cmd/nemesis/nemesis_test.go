package main

import (
	"slices"
	"testing"
	"time"
)

// The schedule is a function of the seed alone, and the short run's
// schedule injects every fault kind.
func TestPlanIsSeededAndCoversEveryKind(t *testing.T) {
	a, b := plan(shortSeed, 70*time.Second, 4, true), plan(shortSeed, 70*time.Second, 4, true)
	if !slices.EqualFunc(a, b, func(x, y fault) bool { return x.String() == y.String() }) {
		t.Fatalf("one seed, two schedules:\n%v\n%v", a, b)
	}
	kinds := map[string]bool{}
	for _, f := range a {
		kinds[f.kind] = true
		if f.at < 5*time.Second || f.at >= 60*time.Second {
			t.Errorf("%s outside the fault window", f)
		}
	}
	for _, k := range []string{"kill-server", "pause-server", "failover", "kill-broker", "kill-client", "toxic"} {
		if !kinds[k] {
			t.Errorf("the short schedule has no %s: %v", k, a)
		}
	}
	if c := plan(shortSeed+1, 70*time.Second, 4, true); slices.EqualFunc(a, c, func(x, y fault) bool { return x.String() == y.String() }) {
		t.Error("two seeds, one schedule")
	}
}

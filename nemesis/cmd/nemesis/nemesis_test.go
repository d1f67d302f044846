package main

import (
	"slices"
	"testing"
	"time"
)

// The schedule is a function of the seed alone, and the short run's
// schedule injects every fault kind.
func TestPlanIsSeededAndCoversEveryKind(t *testing.T) {
	all := []string{"kill-server", "pause-server", "failover", "kill-broker", "kill-client", "toxic"}
	a, b := plan(shortSeed, 70*time.Second, 4, all), plan(shortSeed, 70*time.Second, 4, all)
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
	if c := plan(shortSeed+1, 70*time.Second, 4, all); slices.EqualFunc(a, c, func(x, y fault) bool { return x.String() == y.String() }) {
		t.Error("two seeds, one schedule")
	}
}

func TestPlanDrawsOnlyTheKindsAsked(t *testing.T) {
	for _, f := range plan(1, time.Minute, 4, []string{"kill-client"}) {
		if f.kind != "kill-client" {
			t.Errorf("%s drawn from kill-client alone", f)
		}
	}
	if got := plan(1, time.Minute, 4, nil); len(got) != 0 {
		t.Errorf("no kinds, faults %v", got)
	}
}

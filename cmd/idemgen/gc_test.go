package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the collector's GOGC (SetGCPercent returns the old one).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestTuneGCStartsHighAndReturnsToDefault(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(gcPercent())
	debug.SetGCPercent(100)

	tuneGC([]string{"mock", "api.yaml"})
	if p := gcPercent(); p != 100 {
		t.Fatalf("mock: GOGC %d, want the default 100", p)
	}
	t.Setenv("GOGC", "50")
	tuneGC([]string{"generate"})
	if p := gcPercent(); p != 100 {
		t.Fatalf("GOGC set by the user: the collector was changed to %d", p)
	}
	t.Setenv("GOGC", "")

	tuneGC([]string{"generate"})
	if p := gcPercent(); p != startGOGC {
		t.Fatalf("generate: GOGC %d, want %d", p, startGOGC)
	}
	live := make([][]byte, 0, 64)
	for range 48 {
		live = append(live, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() != 100 && time.Now().Before(deadline) {
		runtime.GC() // each cycle runs the watcher's finalizer
		runtime.Gosched()
	}
	runtime.KeepAlive(live)
	if p := gcPercent(); p != 100 {
		t.Fatalf("live heap past %d MiB: GOGC %d, want 100", startLive>>20, p)
	}
}

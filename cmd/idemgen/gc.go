package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// A one-shot run (generate, lint, annotate) builds a heap that mostly only
// grows, parse tree, kin-openapi's model, the IR, the rendered files, and
// exits: at the default GOGC=100 a quarter of its CPU time went into
// collections that freed little (docs/benchmarks.md, "Generation"). Like the
// Go compiler (cmd/compile's AdjustStartingHeap), it starts with a collector
// that lets the heap grow 5x between collections and returns to the default
// once the live heap passes startLive, so a large document still peaks at
// about twice its live heap, not five times. A GOGC or GOMEMLIMIT the user
// set is left alone, and `idemgen mock`, a server, keeps the defaults.
const (
	startGOGC = 400
	startLive = 32 << 20
)

// tuneGC applies the starting collector for the command line args.
func tuneGC(args []string) {
	if len(args) > 0 && args[0] == "mock" || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(startGOGC)
	watchLiveHeap()
}

// watchLiveHeap checks the live heap after each collection (a finalizer
// runs once per cycle that finds its object unreachable, and re-arms
// itself) and restores GOGC=100 once it passes startLive.
func watchLiveHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > startLive {
				debug.SetGCPercent(100)
				return
			}
			arm()
		})
	}
	arm()
}

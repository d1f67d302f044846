// Command amplify measures retry amplification: a fixed number of logical
// calls (1,000 by default, 50 at a time) against a loopback server that
// answers 503 to every attempt (a total outage), then to 30% of attempts at
// random (seeded), for the idemgen runtime, go-retryablehttp with its
// defaults and three nested retry layers of 3. It prints, per scenario and
// client, the attempts the server saw per logical call (overall, and over
// the second half of the calls, once any retry budget has drained), the
// calls that succeeded, the calls that returned within their deadline, the
// latency of a call, and the run's wall time.
//
// A second scenario is open-loop: 100 clients of one process make a fixed
// number of calls a second to a host that fails every call for a minute,
// then recovers; it prints the attempts per call during the outage and how
// soon every call succeeds again, for the adaptive throttle's default
// window, grpc-go's 30 s window, and the budgets alone.
//
// Every call has the same deadline, the idemgen interactive default (10 s).
// All delays (backoff, deadline, Retry-After ceilings) are divided by -scale
// (20 by default) for every contender alike, so the run takes seconds and the
// attempt counts are those of the unscaled defaults.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// config holds the command-line settings.
type config struct {
	calls, workers int
	scale          float64
	// throttleWindow, when set, is the idemgen contenders' throttle window
	// instead of the default scaled like the delays.
	throttleWindow time.Duration
	deadline       time.Duration
	failRate       float64
	seed           uint64
	// refill, when above 0, adds an idemgen row whose budget refills this
	// much per healthy answer: a what-if for the budget's one free knob.
	refill float64
}

func main() {
	var cfg config
	flag.IntVar(&cfg.calls, "calls", 1000, "logical calls per scenario and client")
	flag.IntVar(&cfg.workers, "workers", 50, "calls in flight at once")
	flag.Float64Var(&cfg.scale, "scale", 20, "divide every delay and deadline by this")
	flag.DurationVar(&cfg.deadline, "deadline", 10*time.Second, "deadline of one logical call, before scaling")
	flag.Float64Var(&cfg.failRate, "fail", 0.3, "share of attempts failed in the partial-failure scenario")
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the partial-failure draws")
	flag.Float64Var(&cfg.refill, "refill", 0, "also run idemgen with this budget refill per healthy answer (0: no extra row)")
	rc := recoveryConfig{}
	flag.IntVar(&rc.rate, "recovery-rate", 100, "calls a second of the fleet in the outage-and-recovery scenario (0: skip it)")
	flag.DurationVar(&rc.outage, "recovery-outage", time.Minute, "length of the outage, before scaling")
	flag.DurationVar(&rc.after, "recovery-after", 90*time.Second, "how long the run goes on after the recovery, before scaling")
	flag.Float64Var(&rc.scale, "recovery-scale", 10, "divide every delay, deadline and window of the recovery scenario by this")
	flag.Parse()
	if cfg.calls < 2 || cfg.workers < 1 || cfg.scale <= 0 {
		fmt.Fprintln(os.Stderr, "amplify: need -calls >= 2, -workers >= 1, -scale > 0")
		os.Exit(2)
	}
	printTable(os.Stdout, cfg, runAll(cfg))
	if rc.rate > 0 {
		fmt.Fprintln(os.Stderr, "== outage and recovery")
		printRecovery(os.Stdout, rc, runRecovery(rc))
	}
}

// scenario is one server behaviour.
type scenario struct {
	name     string
	failRate float64
}

// runAll runs every contender in every scenario.
func runAll(cfg config) []outcome {
	scenarios := []scenario{
		{"total outage (503 to every attempt)", 1},
		{fmt.Sprintf("%.0f%% of attempts fail (503, seed %d)", 100*cfg.failRate, cfg.seed), cfg.failRate},
	}
	cs := contenders
	if cfg.refill > 0 {
		cs = append(cs[:len(cs):len(cs)], withRefill(cfg.refill))
	}
	var out []outcome
	for _, sc := range scenarios {
		for _, c := range cs {
			fmt.Fprintf(os.Stderr, "== %s: %s\n", sc.name, c.name)
			out = append(out, runOne(cfg, sc, c))
		}
	}
	return out
}

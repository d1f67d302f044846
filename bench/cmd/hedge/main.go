// Command hedge measures hedged calls (idemrt.WithHedging) against a
// loopback server whose latency has a heavy tail: each request takes -base,
// and a share -slow of them (drawn from a seeded PCG) -factor times longer.
// An open-loop load (-rate calls a second, each call in its own goroutine,
// so a slow call never holds the next one back) makes -calls GETs of an
// idempotent operation per variant: unhedged, hedged after a fixed delay
// (-after), and hedged at the operation's recent p95 (After 0). It prints,
// per variant, p50, p99, p99.9 and the maximum of the call latency, and the
// requests the server saw beyond one per call (the hedges).
//
// A second table is an outage: every request is answered 503 after -outage
// (a slow failure, so that every call's hedge timer fires); the retry
// budget (10 tokens, refilled only by healthy answers) pays for each hedge
// and each retry, so the extra requests of the whole run stay within it,
// with the adaptive throttle off (the budget alone) and on.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// config holds the command-line settings.
type config struct {
	calls, rate   int
	base          time.Duration
	slow          float64
	factor        int
	after         time.Duration
	outage        time.Duration
	outageCalls   int
	seed          uint64
	hedgeInFlight int
}

func main() {
	var cfg config
	flag.IntVar(&cfg.calls, "calls", 3000, "calls per variant")
	flag.IntVar(&cfg.rate, "rate", 50, "calls a second (open loop)")
	flag.DurationVar(&cfg.base, "base", 20*time.Millisecond, "latency of an ordinary request")
	flag.Float64Var(&cfg.slow, "slow", 0.015, "share of requests that are slow")
	flag.IntVar(&cfg.factor, "factor", 50, "how many times slower a slow request is")
	flag.DurationVar(&cfg.after, "after", 100*time.Millisecond, "the fixed hedge delay")
	flag.IntVar(&cfg.hedgeInFlight, "max", 2, "HedgePolicy.MaxAttempts")
	flag.DurationVar(&cfg.outage, "outage", 300*time.Millisecond, "how long the outage's 503s take")
	flag.IntVar(&cfg.outageCalls, "outage-calls", 300, "calls in the outage scenario")
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the slow-request draws")
	flag.Parse()
	if cfg.calls < 100 || cfg.rate < 1 || cfg.base <= 0 || cfg.factor < 1 || cfg.hedgeInFlight < 2 {
		fmt.Fprintln(os.Stderr, "hedge: need -calls >= 100, -rate >= 1, -base > 0, -factor >= 1, -max >= 2")
		os.Exit(2)
	}
	printTail(os.Stdout, cfg, runTail(cfg))
	printOutage(os.Stdout, cfg, runOutage(cfg))
}

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/idemgen/idemgen/nemesis/check"
	"github.com/idemgen/idemgen/nemesis/topology"
)

// runOptions are the flags of "nemesis run".
type runOptions struct {
	seed         uint64
	duration     time.Duration
	short        bool
	clients      int
	rate         float64
	bypassLedger bool
	skipEvent    int
	noBroker     bool
	keep         bool
	faults       string
	callTimeout  time.Duration
	pgBin        string
}

// shortSeed is --short's fixed seed.
const shortSeed = 38

func parseRun(args []string) runOptions {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	fs.BoolVar(&o.short, "short", false, "the CI run: seed 38, 70s of workload")
	fs.Uint64Var(&o.seed, "seed", 0, "the schedule's seed (default: the time)")
	fs.DurationVar(&o.duration, "duration", 5*time.Minute, "how long the workload and the faults run")
	fs.IntVar(&o.clients, "clients", 4, "client processes")
	fs.Float64Var(&o.rate, "rate", 10, "intents per second per client (open loop)")
	fs.BoolVar(&o.bypassLedger, "bypass-ledger", false, "servers run keyed operations without the ledger (the checker must report duplicates)")
	fs.IntVar(&o.skipEvent, "skip-event", 0, "the relay drops every Nth event (the checker must report lost events)")
	fs.BoolVar(&o.noBroker, "no-broker", false, "run without the NATS cluster and the consumer")
	fs.StringVar(&o.faults, "faults", strings.Join(check.FaultKinds, ","), "the fault kinds to draw from, comma-separated")
	fs.DurationVar(&o.callTimeout, "call-timeout", 10*time.Second, "each client call's total deadline (the runtime's interactive default)")
	fs.BoolVar(&o.keep, "keep", false, "keep the run's directory (logs, journals, data) even when it passes")
	fs.StringVar(&o.pgBin, "pg-bin", envOr("IDEMGEN_PG_BIN", "/usr/lib/postgresql/15/bin"), "PostgreSQL 15 server binaries")
	fs.Parse(args)
	if o.short {
		o.seed, o.duration = shortSeed, 70*time.Second
	}
	if o.noBroker {
		o.faults = strings.ReplaceAll(o.faults, "kill-broker", "")
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano()%1_000_000) + 1
	}
	return o
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// runMain runs the whole nemesis and returns the exit code: 0 when the
// checker found nothing, 1 on a violation, 2 when the run itself failed.
func runMain(args []string) int {
	o := parseRun(args)
	start := time.Now()
	dir, err := os.MkdirTemp("", "nemesis-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "nemesis:", err)
		return 2
	}
	// The whole run is bounded: the workload, then at most a few minutes
	// to settle and check; a signal ends it early. Either way every
	// process is killed (procs.Close) before returning.
	ctx, cancel := context.WithTimeout(context.Background(), o.duration+4*time.Minute)
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	procs := &topology.Procs{LogDir: filepath.Join(dir, "logs")}
	os.Mkdir(procs.LogDir, 0o755)
	t := &topo{o: o, dir: dir, procs: procs}
	code := t.run(ctx)
	procs.Close()
	if t.links != nil {
		t.links.Close()
	}
	fmt.Printf("nemesis: took %v\n", time.Since(start).Round(time.Second))
	if code == 0 && !o.keep {
		os.RemoveAll(dir)
	} else {
		fmt.Printf("nemesis: logs, journals and data kept in %s\n", dir)
	}
	return code
}

func (t *topo) run(ctx context.Context) int {
	if err := t.up(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "nemesis: topology:", err)
		return 2
	}
	rep, err := t.exercise(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nemesis:", err)
		return 2
	}
	rep.Print(os.Stdout)
	if rep.Failed() {
		return 1
	}
	return 0
}

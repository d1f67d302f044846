// Command overload measures a generated server that sheds load
// (idemsrv.WithMaxInFlight) under a fleet of generated clients that honour
// its Retry-After. The server is golden/orders with -slots requests in
// flight, each taking -service of real time (a sleep: this is a load test,
// not a unit test), so its capacity is slots/service. -clients clients, each
// with its own Runner (its own retry budget) and its own connections, start
// calls open-loop at -factor times that capacity for -duration, then every
// call runs to its end. All traffic stays on 127.0.0.1 and the run stops by
// itself: the calls are counted in advance and each has the interactive
// deadline (10 s).
//
// It prints one Markdown row per run and the median of the runs: goodput
// (calls that succeeded within the load window, as a share of the capacity
// over that window), the 503s and how many carried Retry-After, attempts
// per call, call latency, failed calls by error, and how bunched the retries
// arrived (the busiest 100 ms against the mean), and the CPU time an attempt
// cost. -split runs the server in a process of its own (this program with
// -serve), as a real fleet is not in the server's process, and reports the
// server's share of that CPU time. Under -split the server process asks
// for the highest priority (nice -20, which needs the privilege) and the
// fleet collects garbage less often (-fleetgc): see fleet.go.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"
)

// config holds the command-line settings.
type config struct {
	clients, slots int
	service        time.Duration
	factor         float64
	duration       time.Duration
	runs           int
	// queue is the server's WithMaxQueued, -1 for its default.
	queue      int
	cpuprofile string
	// split runs the server in a child process; serve is the child.
	split, serve bool
	// fleetGC is the fleet process's GOGC under -split.
	fleetGC int
}

// capacity is the server's throughput in requests per second.
func (c config) capacity() float64 { return float64(c.slots) / c.service.Seconds() }

func main() {
	var cfg config
	flag.IntVar(&cfg.clients, "clients", 1000, "clients, each with its own Runner and connections")
	flag.IntVar(&cfg.slots, "slots", 8, "the server's WithMaxInFlight")
	flag.DurationVar(&cfg.service, "service", 5*time.Millisecond, "how long the handler takes")
	flag.Float64Var(&cfg.factor, "factor", 10, "offered load as a multiple of capacity")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Second, "how long calls are started")
	flag.IntVar(&cfg.runs, "runs", 3, "runs; the median is printed last")
	flag.IntVar(&cfg.queue, "queue", -1, "the server's WithMaxQueued (-1: its default, a quarter of -slots)")
	flag.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile of all runs to this file (under -split, the server process's to this file.server)")
	flag.BoolVar(&cfg.split, "split", false, "run the server in a process of its own, as a real fleet is not in its process")
	flag.BoolVar(&cfg.serve, "serve", false, "be -split's server process (internal)")
	flag.IntVar(&cfg.fleetGC, "fleetgc", 800, "the fleet process's GOGC under -split")
	flag.Parse()
	if cfg.clients < 1 || cfg.slots < 1 || cfg.service <= 0 || cfg.factor <= 0 || cfg.duration <= 0 || cfg.runs < 1 {
		fmt.Fprintln(os.Stderr, "overload: need positive -clients, -slots, -service, -factor, -duration, -runs")
		os.Exit(2)
	}
	if cfg.cpuprofile != "" {
		stop, err := profile(cfg.cpuprofile)
		die(err)
		defer stop()
	}
	if cfg.serve {
		prioritize()
		die(serveChild(cfg, os.Stdin, os.Stdout))
		return
	}
	if cfg.split {
		debug.SetGCPercent(cfg.fleetGC)
	}
	var out []outcome
	printHeader(os.Stdout, cfg)
	for range cfg.runs {
		o, err := runOnce(cfg)
		die(err)
		printRow(os.Stdout, "run", o)
		out = append(out, o)
	}
	printRow(os.Stdout, "median", median(out))
}

// profile starts a CPU profile written to path; the function it returns
// stops it.
func profile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// die ends the program on an error.
func die(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "overload:", err)
		os.Exit(1)
	}
}

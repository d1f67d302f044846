package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/idemgen/idemgen/nemesis/load"
	"github.com/idemgen/idemgen/nemesis/topology"
)

// loadOptions are the flags of "nemesis load", the load curve
// (docs/benchmarks.md, "Load curve").
type loadOptions struct {
	clients        []int
	stores         []string
	probe, measure time.Duration
	pgBin, hdrDir  string
	keep, pgFsync  bool
}

func parseLoad(args []string) (loadOptions, error) {
	var o loadOptions
	var clients, stores string
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	fs.StringVar(&clients, "clients", "1,4,16,64", "the concurrent clients of each cell, comma-separated")
	fs.StringVar(&stores, "stores", "sqlite,postgres", "the stores: sqlite (one server process), postgres (three servers on the replicated pair)")
	fs.DurationVar(&o.probe, "probe", 3*time.Second, "each cell's closed-loop probe of the most it sustains")
	fs.DurationVar(&o.measure, "measure", 7*time.Second, "each cell's open-loop measure at 80% of the probe's rate")
	fs.StringVar(&o.hdrDir, "hdr", "", "a directory to write each cell's HDR latency plot into (vegeta's hdrplot format)")
	fs.BoolVar(&o.pgFsync, "pg-fsync", true, "run PostgreSQL with fsync and full-page writes (the nemesis's topology runs without)")
	fs.BoolVar(&o.keep, "keep", false, "keep the run's directory (logs, data)")
	fs.StringVar(&o.pgBin, "pg-bin", envOr("IDEMGEN_PG_BIN", "/usr/lib/postgresql/15/bin"), "PostgreSQL 15 server binaries")
	fs.Parse(args)
	for _, s := range strings.Split(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-clients: %q is not a positive number", s)
		}
		o.clients = append(o.clients, n)
	}
	for _, s := range strings.Split(stores, ",") {
		if s != "sqlite" && s != "postgres" {
			return o, fmt.Errorf("-stores: %q is not sqlite or postgres", s)
		}
		o.stores = append(o.stores, s)
	}
	return o, nil
}

// loadMain runs the load curve and returns the exit code: 0 when every
// cell was measured, 2 when the topology could not be run.
func loadMain(args []string) int {
	o, err := parseLoad(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nemesis load:", err)
		return 2
	}
	dir, err := os.MkdirTemp("", "loadcurve-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "nemesis load:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	procs := &topology.Procs{LogDir: filepath.Join(dir, "logs")}
	os.Mkdir(procs.LogDir, 0o755)
	fmt.Printf("load: %d CPUs, %s, load average %s\n", runtime.NumCPU(), runtime.Version(), loadAverage())
	lc := &loadCurve{o: o, dir: dir, procs: procs}
	cells, err := lc.run(ctx)
	if lc.primary != nil {
		lc.primary.Close()
	}
	procs.Close()
	fmt.Printf("load: load average after %s\n", loadAverage())
	if err != nil || o.keep {
		fmt.Printf("load: logs and data kept in %s\n", dir)
	} else {
		os.RemoveAll(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nemesis load:", err)
		return 2
	}
	fmt.Println()
	load.WriteTable(os.Stdout, cells)
	fmt.Println()
	for _, b := range load.Bends(cells) {
		fmt.Println("load:", b)
	}
	return 0
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// loadAverage is /proc/loadavg's three averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// loadCurve is one run of the curve: each store, the ledger off then on,
// each number of clients.
type loadCurve struct {
	o     loadOptions
	dir   string
	self  string
	procs *topology.Procs
	pg    *topology.PG
	// primary reads the primary's WAL statistics.
	primary *sql.DB
}

func (lc *loadCurve) run(ctx context.Context) ([]load.Cell, error) {
	var err error
	if lc.self, err = os.Executable(); err != nil {
		return nil, err
	}
	var cells []load.Cell
	for _, store := range lc.o.stores {
		if store == "postgres" {
			s := time.Now()
			if lc.pg, err = topology.StartPG(ctx, lc.procs, lc.o.pgBin, filepath.Join(lc.dir, "pg")); err != nil {
				return nil, err
			}
			if lc.o.pgFsync {
				if err := lc.durablePG(ctx); err != nil {
					return nil, err
				}
			}
			if lc.primary, err = sql.Open("pgx", lc.pg.NodeDSN(lc.pg.Primary, "postgres")); err != nil {
				return nil, err
			}
			fmt.Printf("load: PostgreSQL primary + synchronous standby up in %v (fsync %s)\n",
				time.Since(s).Round(10*time.Millisecond), onOff(lc.o.pgFsync))
		}
		for _, ledger := range []bool{false, true} {
			series, err := lc.series(ctx, store, ledger)
			if err != nil {
				return nil, err
			}
			cells = append(cells, series...)
		}
	}
	return cells, nil
}

// durablePG turns fsync and full-page writes back on, on both nodes: the
// nemesis's topology runs without them (its faults kill processes, not
// machines), but a load curve without them would price a commit as the
// standby's round trip alone, against a SQLite that syncs each one.
func (lc *loadCurve) durablePG(ctx context.Context) error {
	for i := range lc.pg.Nodes {
		db, err := sql.Open("pgx", lc.pg.NodeDSN(i, "postgres"))
		if err != nil {
			return err
		}
		for _, q := range []string{"ALTER SYSTEM SET fsync = on", "ALTER SYSTEM SET full_page_writes = on", "SELECT pg_reload_conf()"} {
			if _, err = db.ExecContext(ctx, q); err != nil {
				err = fmt.Errorf("%s on %s: %w", q, lc.pg.Nodes[i].Name, err)
				break
			}
		}
		db.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// series starts the servers of store and their balancer, measures a cell
// per number of clients, and stops them.
func (lc *loadCurve) series(ctx context.Context, store string, ledger bool) ([]load.Cell, error) {
	url, stop, err := lc.startServers(store, ledger)
	defer stop()
	if err != nil {
		return nil, err
	}
	tr := load.Targeter(url, "load", uuid.NewString)
	load.Attack(ctx, tr, 4, 0, time.Second) // warm-up: connections, the store's first pages
	var cells []load.Cell
	for _, n := range lc.o.clients {
		c, tally := load.Measure(ctx, tr, load.Cell{Store: store, Ledger: ledger, Clients: n}, lc.o.probe, lc.o.measure, lc.sample(ctx, store))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fmt.Printf("load: %s, ledger %s, %d clients: max %.0f req/s; at %.0f req/s p50 %v p99 %v, %d errors of %d, %.2f cores\n",
			store, onOff(ledger), n, c.MaxRate, c.Rate, c.P50, c.P99, c.Errors, c.Requests, c.Cores)
		if err := lc.writeHDR(c, tally); err != nil {
			return nil, err
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// sample reads the CPU time of the run so far and, on PostgreSQL, the
// primary's WAL flushes so far (pg_stat_wal.wal_sync; PostgreSQL's
// statistics lag by up to a second).
func (lc *loadCurve) sample(ctx context.Context, store string) func() load.Sample {
	return func() load.Sample {
		s := load.Sample{Flushes: -1}
		s.CPU, s.Generator = topologyCPU()
		if store == "postgres" {
			if err := lc.primary.QueryRowContext(ctx, "SELECT wal_sync FROM pg_stat_wal").Scan(&s.Flushes); err != nil {
				s.Flushes = -1
			}
		}
		return s
	}
}

// startServers starts one server on a fresh SQLite file, or three on the
// PostgreSQL pair, behind HAProxy; stop kills what was started.
func (lc *loadCurve) startServers(store string, ledger bool) (url string, stop func(), err error) {
	var started []*topology.Proc
	stop = func() {
		for _, p := range started {
			p.Kill()
		}
	}
	n, dbArgs := 3, []string{"-dsn", ""}
	if store == "sqlite" {
		n, dbArgs = 1, []string{"-sqlite", filepath.Join(lc.dir, fmt.Sprintf("shop-ledger-%v.db", ledger))}
	} else {
		dbArgs[1] = lc.pg.DSN([2]int{lc.pg.Nodes[0].Port, lc.pg.Nodes[1].Port}, "shop")
	}
	var ports []int
	for i := range n {
		port, err := topology.FreePort()
		if err != nil {
			return "", stop, err
		}
		args := append([]string{lc.self, "server", "-addr", fmt.Sprintf("127.0.0.1:%d", port), "-work", "0"}, dbArgs...)
		if !ledger {
			args = append(args, "-bypass-ledger")
		}
		p, _, err := lc.procs.StartReady(fmt.Sprintf("%s-ledger-%v-server%d", store, ledger, i+1), 60*time.Second, nil, args...)
		if p != nil {
			started = append(started, p)
		}
		if err != nil {
			return "", stop, err
		}
		ports = append(ports, port)
	}
	hp, err := topology.FreePort()
	if err != nil {
		return "", stop, err
	}
	p, err := topology.StartHAProxy(lc.procs, lc.dir, hp, ports)
	if p != nil {
		started = append(started, p)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", hp), stop, err
}

// writeHDR writes a cell's HDR latency plot, when -hdr names a directory.
func (lc *loadCurve) writeHDR(c load.Cell, t load.Tally) error {
	if lc.o.hdrDir == "" {
		return nil
	}
	if err := os.MkdirAll(lc.o.hdrDir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(lc.o.hdrDir, fmt.Sprintf("%s-ledger-%v-%d.hdr", c.Store, c.Ledger, c.Clients)))
	if err != nil {
		return err
	}
	defer f.Close()
	return vegeta.NewHDRHistogramPlotReporter(&t.Metrics).Report(f)
}

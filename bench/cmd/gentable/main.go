// Command gentable measures code generation: for each OpenAPI document it
// runs the kin-openapi load+validate floor, idemgen, oapi-codegen and ogen,
// recording wall time and peak RSS of each, then counts the lines each
// generator wrote and times `go build` of each generated package. It prints
// Markdown tables with idemgen's ratios to the floor and to each peer.
//
// Peak RSS comes from wait4's rusage of the child process, so no external
// time(1) is needed. Generated packages are written under the bench
// module's _work directory (ignored by ./... patterns) at a path that is new
// on every run, so `go build` never reuses a cached compile of them; their
// dependencies are built first, unmeasured, so the timing is the generated
// package's own compile.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.binDir, "bin", ".bin", "directory holding kinfloor, idemgen, oapi-codegen and ogen")
	flag.StringVar(&cfg.moduleDir, "module", ".", "root of the bench module (generated packages are built there)")
	flag.StringVar(&cfg.ogenConfig, "ogen-config", "ogen.yml", "ogen configuration file")
	flag.IntVar(&cfg.runs, "runs", 3, "generation runs per cell; the median wall time is kept")
	flag.BoolVar(&cfg.build, "build", true, "time `go build` of every generated package")
	flag.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "limit for any single command")
	compare := flag.Bool("compare", false, "measure only the floors and idemgen (also at GOGC=100), interleaved")
	old := flag.String("old", "", "with -compare: an older idemgen binary to measure beside the current one")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gentable [flags] SPEC...")
		os.Exit(2)
	}
	run := run
	if *compare {
		run = func(cfg config, specs []string) error { return runCompare(cfg, *old, specs, os.Stdout) }
	}
	if err := run(cfg, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gentable:", err)
		os.Exit(1)
	}
}

// config holds the command-line settings.
type config struct {
	binDir, moduleDir, ogenConfig string
	runs                          int
	build                         bool
	timeout                       time.Duration
}

// run measures every contender on every spec and prints the tables.
func run(cfg config, specs []string) error {
	var err error
	if cfg.moduleDir, err = filepath.Abs(cfg.moduleDir); err != nil {
		return err
	}
	if cfg.ogenConfig, err = filepath.Abs(cfg.ogenConfig); err != nil {
		return err
	}
	work := filepath.Join(cfg.moduleDir, "_work", "gen")
	// Earlier runs' packages are only cache fodder now.
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	runDir := filepath.Join(work, fmt.Sprintf("r%d", time.Now().UnixNano()))
	cs := contenders(cfg.binDir, cfg.ogenConfig)
	var rows []row
	for _, spec := range specs {
		r, err := measureSpec(cfg, cs, spec, runDir)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	printTables(os.Stdout, cfg, cs, rows)
	return nil
}

// row is one spec's measurements, one cell per contender in contender order.
type row struct {
	spec  string
	bytes int64
	cells []cell
}

// cell is one contender's measurements on one spec.
type cell struct {
	gen   sample
	loc   int
	files int
	build sample
	// built is false when the build was not attempted.
	built bool
}

// measureSpec runs every contender on spec.
func measureSpec(cfg config, cs []contender, spec, runDir string) (row, error) {
	st, err := os.Stat(spec)
	if err != nil {
		return row{}, err
	}
	r := row{spec: filepath.Base(spec), bytes: st.Size()}
	pkg := packageName(spec)
	for _, c := range cs {
		fmt.Fprintf(os.Stderr, "== %s: %s\n", r.spec, c.name)
		dir := filepath.Join(runDir, strings.ReplaceAll(c.name, "-", ""), pkg)
		r.cells = append(r.cells, measureCell(cfg, c, spec, pkg, dir))
	}
	return r, nil
}

// measureCell generates (cfg.runs times), counts and builds one package.
func measureCell(cfg config, c contender, spec, pkg, dir string) cell {
	if !c.available() {
		return cell{gen: sample{err: fmt.Errorf("%w: %s", errMissing, c.bin)}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return cell{gen: sample{err: err}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	argv := append([]string{c.bin}, c.argv(spec, pkg, dir)...)
	cl := cell{gen: runN(ctx, cfg.runs, cfg.moduleDir, c.env, argv...)}
	if cl.gen.err != nil || !c.generates {
		return cl
	}
	cl.files, cl.loc, cl.gen.err = countLines(dir)
	if cl.gen.err == nil && cfg.build {
		cl.build, cl.built = timeBuild(ctx, cfg.moduleDir, dir), true
	}
	return cl
}

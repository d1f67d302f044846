package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The compare mode (-compare) measures idemgen against itself and the
// floors only: an older build (-old, e.g. built at the commit before a
// change), the current one, and the current one with the collector at its
// default (GOGC=100, so the starting-heap tuning of cmd/idemgen/gc.go is
// seen apart from the rest). Runs are interleaved, one of each contender per
// round, so every contender sees the same machine; medians are kept.

// compareContenders lists the floors, then the idemgen builds.
func compareContenders(binDir, old string) []contender {
	cs := contenders(binDir, "")[:nFloors]
	gen := func(spec, pkg, dir string) []string {
		return []string{"generate", spec, "--package", pkg, "--out", dir}
	}
	if old != "" {
		cs = append(cs, contender{name: "idemgen-old", bin: old, argv: gen, generates: true})
	}
	return append(cs,
		contender{name: "idemgen", bin: filepath.Join(binDir, "idemgen"), argv: gen, generates: true},
		contender{name: "idemgen-gogc100", bin: filepath.Join(binDir, "idemgen"), argv: gen, generates: true,
			env: []string{"GOGC=100"}},
	)
}

// runCompare measures every contender on every spec, cfg.runs rounds each.
func runCompare(cfg config, old string, specs []string, w io.Writer) error {
	cs := compareContenders(cfg.binDir, old)
	fmt.Fprintf(w, "### Generation, interleaved: median wall time, CPU time (user+sys) of %d runs, highest peak RSS\n\n| spec |", cfg.runs)
	for _, c := range cs {
		fmt.Fprintf(w, " %s |", c.name)
	}
	fmt.Fprintf(w, " idemgen / floor | idemgen / load | idemgen-gogc100 / floor |")
	if old != "" {
		fmt.Fprintf(w, " idemgen-old / floor | idemgen / idemgen-old |")
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(cs)+3+2*boolInt(old != "")))
	for _, spec := range specs {
		cells, err := compareSpec(cfg, cs, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "| %s |", filepath.Base(spec))
		for _, cl := range cells {
			fmt.Fprintf(w, " %s |", genCell(cl))
		}
		idem := len(cells) - 2
		fmt.Fprintf(w, " %s | %s | %s |", ratioCell(cells[idem], cells[iFloor]), ratioCell(cells[idem], cells[iLoad]),
			ratioCell(cells[idem+1], cells[iFloor]))
		if old != "" {
			fmt.Fprintf(w, " %s | %s |", ratioCell(cells[nFloors], cells[iFloor]), ratioCell(cells[idem], cells[nFloors]))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// compareSpec runs the contenders on spec in rounds and returns one cell
// each (medians of the rounds).
func compareSpec(cfg config, cs []contender, spec string) ([]cell, error) {
	runs := make([][]sample, len(cs))
	dir, err := os.MkdirTemp("", "gentable-compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	for round := range cfg.runs {
		for i, c := range cs {
			out := filepath.Join(dir, fmt.Sprintf("%d-%d", round, i))
			argv := append([]string{c.bin}, c.argv(spec, packageName(spec), out)...)
			runs[i] = append(runs[i], runOnce(ctx, cfg.moduleDir, c.env, argv...))
		}
	}
	cells := make([]cell, len(cs))
	for i, ss := range runs {
		cells[i] = cell{gen: medianSample(ss)}
	}
	return cells, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

package main

import (
	"fmt"
	"io"
)

// printThroughput writes the table of a benchmark that reports MB/s (the
// large-response decode): throughput, CPU per call, and allocations per
// decoded object, each contender's throughput as a multiple of the floor's.
func (r *results) printThroughput(w io.Writer, b, floor string) {
	fmt.Fprintln(w, "| client | MB/s | ns/op | cpu-ns/op | allocs/object | B/object | MB/s vs floor | CPU vs floor |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	base := r.byKey[key{b, floor}]
	for _, k := range r.order {
		if k.bench != b {
			continue
		}
		m := r.byKey[k]
		s := fmt.Sprintf("| %s | %s | %s | %s | %.1f | %.0f |", k.sub, withSpreadPrec(m.mbs, 1), withSpread(m.ns),
			withSpread(m.cpu), median(m.objAllocs), median(m.objBytes))
		if base == nil || median(base.mbs) == 0 {
			fmt.Fprintln(w, s+" - | - |")
			continue
		}
		fmt.Fprintf(w, "%s %.2fx | %s |\n", s, median(m.mbs)/median(base.mbs), relative(m.cpu, base.cpu))
	}
}

// withSpreadPrec is withSpread with prec decimals for the median.
func withSpreadPrec(xs []float64, prec int) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.*f ±%.0f%%", prec, median(xs), 100*spread(xs))
}

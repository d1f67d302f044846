package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// key names one contender of one benchmark.
type key struct{ bench, sub string }

// metrics holds every run's figures for one key.
type metrics struct{ ns, cpu, bytes, allocs, mbs, objAllocs, objBytes []float64 }

// series is the list a unit's figures go to, or nil for a unit not kept.
func (m *metrics) series(unit string) *[]float64 {
	return map[string]*[]float64{
		"ns/op": &m.ns, "cpu-ns/op": &m.cpu, "B/op": &m.bytes, "allocs/op": &m.allocs,
		"MB/s": &m.mbs, "allocs/object": &m.objAllocs, "B/object": &m.objBytes,
	}[unit]
}

// results are benchmark lines grouped by key, in first-seen order.
type results struct {
	order []key
	byKey map[key]*metrics
}

func newResults() *results { return &results{byKey: map[key]*metrics{}} }

// lineRE matches "BenchmarkX/sub-8   1000   123 ns/op   45 B/op   6 allocs/op".
var lineRE = regexp.MustCompile(`^(Benchmark[^/\s]+)/(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// add records one line of benchmark output; other lines are ignored.
func (r *results) add(line string) {
	m := lineRE.FindStringSubmatch(line)
	if m == nil {
		return
	}
	k := key{m[1], m[2]}
	mt := r.byKey[k]
	if mt == nil {
		mt = &metrics{}
		r.byKey[k] = mt
		r.order = append(r.order, k)
	}
	f := strings.Fields(m[3])
	for i := 0; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			continue
		}
		if series := mt.series(f[i+1]); series != nil {
			*series = append(*series, v)
		}
	}
}

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread is the half-range of xs as a fraction of its median: a cheap,
// honest noise figure for a handful of runs.
func spread(xs []float64) float64 {
	m := median(xs)
	if m == 0 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / 2 / m
}

// print writes one table per benchmark.
func (r *results) print(w io.Writer, floor string) {
	var benches []string
	for _, k := range r.order {
		if !slices.Contains(benches, k.bench) {
			benches = append(benches, k.bench)
		}
	}
	for _, b := range benches {
		fmt.Fprintf(w, "\n### %s (median of %d runs)\n\n", b, len(r.byKey[r.firstOf(b)].ns))
		if len(r.byKey[r.firstOf(b)].mbs) > 0 {
			r.printThroughput(w, b, floor)
			continue
		}
		fmt.Fprintln(w, "| client | ns/op | cpu-ns/op | B/op | allocs/op | time vs floor | CPU vs floor | allocs vs floor |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
		base := r.byKey[key{b, floor}]
		for _, k := range r.order {
			if k.bench == b {
				fmt.Fprintln(w, row(k.sub, r.byKey[k], base))
			}
		}
	}
}

func (r *results) firstOf(bench string) key {
	for _, k := range r.order {
		if k.bench == bench {
			return k
		}
	}
	return key{}
}

// row formats one contender, compared with base when there is one.
func row(name string, m, base *metrics) string {
	s := fmt.Sprintf("| %s | %s | %s | %.0f | %.0f |", name, withSpread(m.ns), withSpread(m.cpu),
		median(m.bytes), median(m.allocs))
	if base == nil || median(base.ns) == 0 {
		return s + " - | - | - |"
	}
	return s + fmt.Sprintf(" %s | %s | %+.0f |", relative(m.ns, base.ns), relative(m.cpu, base.cpu),
		median(m.allocs)-median(base.allocs))
}

// withSpread shows a median and its noise, or "-" when the metric is absent.
func withSpread(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f ±%.0f%%", median(xs), 100*spread(xs))
}

// relative shows the median of xs as a change from the median of base.
func relative(xs, base []float64) string {
	if len(xs) == 0 || median(base) == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*(median(xs)/median(base)-1))
}

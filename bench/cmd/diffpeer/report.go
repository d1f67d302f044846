package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// result is both tools' findings on one pair.
type result struct {
	pair                     string
	idemgen                  []idemgenFinding
	oasdiff                  []oasdiffFinding
	idemgenCost, oasdiffCost cost
}

// summary is what the tables show of one tool on one pair.
type summary struct {
	breaking, warnings, contract int
	// ops are the operations with a breaking finding, by operationId.
	ops   map[string]bool
	rules map[string]int
}

func (r result) idemgenSummary() summary {
	s := summary{ops: map[string]bool{}, rules: map[string]int{}}
	for _, f := range r.idemgen {
		if !f.Breaking {
			continue
		}
		s.breaking++
		s.rules[f.Rule]++
		if f.Area == "retry-contract" {
			s.contract++
		}
		if f.Operation != "" {
			s.ops[f.Operation] = true
		}
	}
	return s
}

func (r result) oasdiffSummary() summary {
	s := summary{ops: map[string]bool{}, rules: map[string]int{}}
	for _, f := range r.oasdiff {
		if f.Level == 2 {
			s.warnings++
		}
		if f.Level < 3 {
			continue
		}
		s.breaking++
		s.rules[f.ID]++
		s.ops[f.OperationID] = true
	}
	return s
}

// markdown renders the comparison tables.
func markdown(rows []result) string {
	var b strings.Builder
	b.WriteString("| pair | tool | breaking findings | of them retry contract | warnings | operations named in one | of them named by this tool only | wall | peak RSS |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		i, o := r.idemgenSummary(), r.oasdiffSummary()
		fmt.Fprintf(&b, "| %s | idemgen diff | %d | %d | - | %d | %d | %.1f s | %d MB |\n",
			r.pair, i.breaking, i.contract, len(i.ops), only(i.ops, o.ops), r.idemgenCost.wall.Seconds(), r.idemgenCost.peakMB)
		fmt.Fprintf(&b, "| | oasdiff breaking | %d | 0 | %d | %d | %d | %.1f s | %d MB |\n",
			o.breaking, o.warnings, len(o.ops), only(o.ops, i.ops), r.oasdiffCost.wall.Seconds(), r.oasdiffCost.peakMB)
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "\n%s, breaking findings by rule:\n\n", r.pair)
		b.WriteString("| idemgen diff | | oasdiff breaking (ERR) | |\n|---|---:|---|---:|\n")
		ir, or := top(r.idemgenSummary().rules), top(r.oasdiffSummary().rules)
		for k := range max(len(ir), len(or)) {
			fmt.Fprintf(&b, "| %s | %s |\n", cell(ir, k), cell(or, k))
		}
	}
	return b.String()
}

// only counts the keys of a that b lacks.
func only(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if !b[k] {
			n++
		}
	}
	return n
}

type count struct {
	rule string
	n    int
}

// top returns the rules by count, most first, at most 12.
func top(m map[string]int) []count {
	var out []count
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, count{k, m[k]})
	}
	slices.SortStableFunc(out, func(a, b count) int { return cmp.Compare(b.n, a.n) })
	return out[:min(len(out), 12)]
}

func cell(cs []count, k int) string {
	if k >= len(cs) {
		return " | "
	}
	return fmt.Sprintf("`%s` | %d", cs[k].rule, cs[k].n)
}

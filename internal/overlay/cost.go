package overlay

import (
	"fmt"
	"math"
	"strings"

	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"
)

// maxQueryWork bounds the node visits a JSONPath target may cost on the
// document it runs on, as estimated by queryCost before it runs: the
// evaluator cannot be interrupted, so a target that would cost more (a
// filter running a descendant query from the root for every node, N^2
// visits) is refused instead. It is the budget of building and keeping the
// view, which a target has to fit anyway.
const maxQueryWork = maxConverted

// shape is what the cost of a query depends on: the number of nodes of the
// document and its depth (root at 0), both upper bounds.
type shape struct {
	nodes, depth float64
}

// queryCost estimates an upper bound of the node visits evaluating q costs,
// starting from a list of size nodes in which no node appears more than mult
// times (the root: 1, 1). It returns the bound and the size and multiplicity
// of the result. The bounds rest on each node having one parent: the
// children of distinct nodes are distinct, so a child segment multiplies
// the multiplicity only by its number of selectors, while a descendant
// segment reaches a node from each of its depth+1 ancestors-or-self.
func (sh shape) queryCost(q *spec.PathQuery, size, mult float64) (work, outSize, outMult float64) {
	for _, seg := range q.Segments() {
		if seg.IsDescendant() {
			size, mult = sh.nodes*math.Min(size, (sh.depth+1)*mult), math.Min(size, (sh.depth+1)*mult)
			work += size
		}
		var w float64
		w, size, mult = sh.childCost(seg.Selectors(), size, mult)
		work += w
	}
	return work, size, mult
}

// childCost is queryCost for the selectors of one child segment.
func (sh shape) childCost(sels []spec.Selector, size, mult float64) (work, outSize, outMult float64) {
	children := math.Min(sh.nodes*mult, size*sh.nodes)
	for _, sel := range sels {
		outMult += mult
		switch s := sel.(type) {
		case spec.Name, spec.Index:
			work += size
			outSize += size
		case *spec.FilterSelector:
			work += children + sh.filterCost(s, children, mult)
			outSize += children
		default: // a wildcard or a slice
			work += children
			outSize += children
		}
	}
	return work, outSize, outMult
}

// filterCost bounds the work of a filter tested on candidates nodes, none
// more than mult times. A relative query costs what it costs from the
// candidates as a whole; an absolute one runs again for every candidate.
// A comparison of two queries compares whole values: each candidate's
// subtree, at worst.
func (sh shape) filterCost(f *spec.FilterSelector, candidates, mult float64) float64 {
	queries := subqueries(f.String())
	var work float64
	for _, text := range queries {
		q, err := jsonpath.Parse("$" + text[1:])
		if err != nil {
			return math.Inf(1) // cannot happen: the text came from a parsed query
		}
		if text[0] == '@' {
			w, _, _ := sh.queryCost(q.Query(), candidates, mult)
			work += w
			continue
		}
		w, _, _ := sh.queryCost(q.Query(), 1, 1)
		work += candidates * w
	}
	if len(queries) > 1 {
		work += sh.nodes * math.Min(candidates, (sh.depth+1)*mult)
	}
	return work
}

// subqueries returns the queries a filter expression holds, as written in
// its canonical form (`?count($..[*]) > 1` holds `$..[*]`): each starts at
// a `$` or `@` outside a string literal and runs through the bracketed
// segments that follow it, a nested filter included (queryCost reaches it
// through the parsed query).
func subqueries(expr string) []string {
	var out []string
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '"', '\'':
			i = skipString(expr, i)
		case '$', '@':
			end := querySpan(expr, i+1)
			out = append(out, expr[i:end])
			i = end - 1
		}
	}
	return out
}

// querySpan returns the end of the segments starting at i: `[...]` or
// `..[...]`, repeated.
func querySpan(s string, i int) int {
	for {
		j := i
		if strings.HasPrefix(s[j:], "..") {
			j += 2
		}
		if j >= len(s) || s[j] != '[' {
			return i
		}
		i = closeBracket(s, j)
	}
}

// closeBracket returns the index after the `]` matching the `[` at i,
// skipping string literals and nested brackets.
func closeBracket(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipString(s, i)
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// skipString returns the index of the quote closing the string literal
// opened at i (backslash escapes skipped).
func skipString(s string, i int) int {
	quote := s[i]
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case quote:
			return i
		}
	}
	return len(s)
}

// checkQueryCost refuses a target whose estimated cost on a document of
// shape sh exceeds maxQueryWork, or whose result could hold more than
// MaxNodes nodes.
func checkQueryCost(p *jsonpath.Path, sh shape) error {
	work, size, _ := sh.queryCost(p.Query(), 1, 1)
	if work <= maxQueryWork && size <= MaxNodes {
		return nil
	}
	return fmt.Errorf("target %s could visit about %.2g nodes of this document (%d nodes, %d deep), more than the node budget of %d; refused",
		p, math.Max(work, size), int(sh.nodes), int(sh.depth), maxQueryWork)
}

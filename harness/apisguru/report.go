package apisguru

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// firstError returns the first error-severity finding of ds, which has one.
func firstError(ds ir.Diagnostics) ir.Diagnostic {
	for _, d := range ds {
		if d.Severity == ir.SeverityError {
			return d
		}
	}
	return ir.Diagnostic{}
}

// Tally counts outcomes.
type Tally struct {
	Docs, Generated, WithSkips, Vetted int
	// Classes counts the documents not vetted by class, Refused those of
	// them that were refused (not generated).
	Classes map[string]int
}

// Count tallies outs.
func Count(outs []Outcome) Tally {
	t := Tally{Docs: len(outs), Classes: map[string]int{}}
	for _, o := range outs {
		if o.Dir != "" {
			t.Generated++
			if o.Skipped > 0 {
				t.WithSkips++
			}
		}
		if o.Class == "" {
			t.Vetted++
			continue
		}
		t.Classes[o.Class]++
	}
	return t
}

// Print writes the tally as the lines docs/benchmarks.md quotes:
//
//	apisguru: 150 documents: 149 generated (3 with skips), 149 vetted; not vetted: dangling-ref 1
func (t Tally) Print(w io.Writer) {
	fmt.Fprintf(w, "apisguru: %d documents: %d generated (%d with --skip-unsupported skips), %d vetted", t.Docs, t.Generated, t.WithSkips, t.Vetted)
	if len(t.Classes) > 0 {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(t.Classes)) {
			parts = append(parts, fmt.Sprintf("%s %d", c, t.Classes[c]))
		}
		fmt.Fprintf(w, "; not vetted: %s", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
}

package main

import (
	"strings"
	"testing"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

const sample = `goos: linux
BenchmarkGet/floor-2     	   20000	     100 ns/op	    200 cpu-ns/op	    7000 B/op	      90 allocs/op
BenchmarkGet/idemgen-2   	   20000	     104 ns/op	    210 cpu-ns/op	    7100 B/op	      92 allocs/op
BenchmarkGet/floor-2     	   20000	     120 ns/op	    200 cpu-ns/op	    7000 B/op	      90 allocs/op
BenchmarkGet/idemgen-2   	   20000	     110 ns/op	    210 cpu-ns/op	    7100 B/op	      92 allocs/op
BenchmarkGet/floor-2     	   20000	     110 ns/op	    200 cpu-ns/op	    7000 B/op	      90 allocs/op
BenchmarkGet/idemgen-2   	   20000	     121 ns/op	    210 cpu-ns/op	    7100 B/op	      92 allocs/op
BenchmarkPost/oapi-codegen 	   10	     50 ns/op
PASS
`

func TestRatiosAgainstFloorUseMedians(t *testing.T) {
	var out strings.Builder
	if err := run(strings.NewReader(sample), &out, "floor"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"### BenchmarkGet (median of 3 runs)",
		"| floor | 110 ±9% | 200 ±0% | 7000 | 90 | +0.0% | +0.0% | +0 |",
		// median 110 vs 110: equal time, 5% more CPU, two more allocations.
		"| idemgen | 110 ±8% | 210 ±0% | 7100 | 92 | +0.0% | +5.0% | +2 |",
		// No floor in this benchmark: no ratio, and the name keeps its dash.
		"| oapi-codegen | 50 ±0% | - | 0 | 0 | - | - | - |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestNoBenchmarkLinesIsAnError(t *testing.T) {
	if err := run(strings.NewReader("PASS\n"), &strings.Builder{}, "floor"); err == nil {
		t.Fatal("want an error for input without benchmarks")
	}
}

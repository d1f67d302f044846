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

func TestThroughputTableWhenMBPerSecond(t *testing.T) {
	in := `BenchmarkBig/encoding/json-2  100  2000 ns/op  50.00 MB/s  2100 cpu-ns/op  40.5 allocs/object  900 B/object  10 B/op  1 allocs/op
BenchmarkBig/idemgen-2  100  1000 ns/op  100.00 MB/s  1050 cpu-ns/op  20.2 allocs/object  800 B/object  10 B/op  1 allocs/op
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out, "encoding/json"); err != nil {
		t.Fatal(err)
	}
	want := "| idemgen | 100.0 ±0% | 1000 ±0% | 1050 ±0% | 20.2 | 800 | 2.00x | -50.0% |"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// Command benchratio reads `go test -bench -benchmem` output on stdin and
// prints, for every benchmark, a Markdown table of its sub-benchmarks
// (contenders) with the median ns/op, B/op and allocs/op over all -count
// runs, and each contender's ratio and difference against the floor
// contender.
//
//	go test -run '^$' -bench . -benchmem -count 6 ./overhead/ | benchratio -floor floor
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	floor := flag.String("floor", "floor", "sub-benchmark name every other contender is compared with")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *floor); err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, floor string) error {
	set := newResults()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		set.add(sc.Text())
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(set.order) == 0 {
		return fmt.Errorf("no benchmark lines on input")
	}
	set.print(out, floor)
	return nil
}

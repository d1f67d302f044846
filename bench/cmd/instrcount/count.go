package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
)

// config holds the command-line settings.
type config struct {
	test             string
	benches, clients []string
	n1, n2           int
}

// run measures every benchmark and client and prints one table.
func run(cfg config, w io.Writer) error {
	dir, err := os.MkdirTemp("", "instrcount")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(w, "\n### Instructions per call (callgrind, (count at %dx - count at %dx) / %d)\n\n", cfg.n2, cfg.n1, cfg.n2-cfg.n1)
	fmt.Fprintln(w, "| benchmark | client | instructions / call | vs floor |")
	fmt.Fprintln(w, "|---|---|---:|---:|")
	for _, b := range cfg.benches {
		var floor float64
		for i, c := range cfg.clients {
			fmt.Fprintf(os.Stderr, "== callgrind: %s/%s\n", b, c)
			per, err := perCall(cfg, dir, b, c)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", b, c, err)
			}
			if i == 0 {
				floor = per
			}
			fmt.Fprintf(w, "| %s | %s | %.0f | %s |\n", b, c, per, vsFloor(per, floor))
		}
	}
	return nil
}

// perCall is the instruction count of one iteration of bench/client.
func perCall(cfg config, dir, bench, client string) (float64, error) {
	short, err := instructions(cfg.test, dir, bench, client, cfg.n1)
	if err != nil {
		return 0, err
	}
	long, err := instructions(cfg.test, dir, bench, client, cfg.n2)
	if err != nil {
		return 0, err
	}
	return float64(long-short) / float64(cfg.n2-cfg.n1), nil
}

// collectedRE finds callgrind's total: "==123== Collected : 48385846".
var collectedRE = regexp.MustCompile(`Collected : (\d+)`)

// instructions runs one sub-benchmark n times under callgrind and returns
// the instructions the whole process executed.
func instructions(test, dir, bench, client string, n int) (int64, error) {
	pattern := "^Benchmark" + regexp.QuoteMeta(bench) + "$/^" + regexp.QuoteMeta(client) + "$"
	cmd := exec.Command("valgrind", "--tool=callgrind",
		"--callgrind-out-file="+filepath.Join(dir, "callgrind.out"),
		test, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime="+strconv.Itoa(n)+"x")
	cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("valgrind: %w\n%s", err, tail(out.Bytes()))
	}
	if !bytes.Contains(out.Bytes(), []byte("Benchmark"+bench+"/"+client)) {
		return 0, fmt.Errorf("no benchmark %s/%s ran", bench, client)
	}
	m := collectedRE.FindSubmatch(out.Bytes())
	if m == nil {
		return 0, fmt.Errorf("no instruction count in valgrind's output\n%s", tail(out.Bytes()))
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

// vsFloor shows per as a change from floor.
func vsFloor(per, floor float64) string {
	if floor == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*(per/floor-1))
}

// tail keeps the end of a long output for an error message.
func tail(b []byte) []byte {
	const keep = 2000
	if len(b) > keep {
		return b[len(b)-keep:]
	}
	return b
}

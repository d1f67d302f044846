package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/idemgen/idemgen/harness/specpairs"
)

// tools are the two commands compared, each run as a child process so that
// both are measured the same way.
type tools struct {
	idemgen string
	oasdiff []string
}

// newTools builds idemgen's command into dir and picks oasdiff.
func newTools(dir, oasdiff string) (*tools, error) {
	t := &tools{idemgen: filepath.Join(dir, "idemgen"), oasdiff: []string{oasdiff}}
	if out, err := exec.Command("go", "build", "-o", t.idemgen, "github.com/idemgen/idemgen/cmd/idemgen").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building idemgen: %v\n%s", err, out)
	}
	if oasdiff == "" {
		t.oasdiff = []string{"go", "run", Oasdiff}
	}
	return t, nil
}

func selectPairs(names, shared, dir string) ([]specpairs.Pair, error) {
	var out []specpairs.Pair
	for _, n := range splitPairs(names) {
		var p specpairs.Pair
		var err error
		switch n {
		case "petstore":
			p, err = specpairs.Petstore(shared, dir)
		case "stripe-mock":
			p, err = specpairs.Stripe()
		case "shared-stripe":
			p, err = specpairs.StripeShared(shared)
		default:
			err = fmt.Errorf("unknown pair %q", n)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// cost is what one run of a command took.
type cost struct {
	wall   time.Duration
	peakMB int64
}

// run runs a command and returns its standard output; exit status 1 is
// "breaking" for both tools, not a failure.
func run(args []string) ([]byte, cost, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "GOWORK=off") // go run of the peer stays outside the workspace
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	c := cost{wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.peakMB = ru.Maxrss / 1024
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, c, fmt.Errorf("%v: %v\n%s", args, err, errOut.Bytes())
	}
	return out.Bytes(), c, nil
}

// idemgenFinding is one element of `idemgen diff --format json`.
type idemgenFinding struct {
	Rule      string `json:"rule"`
	Area      string `json:"area"`
	Breaking  bool   `json:"breaking"`
	Operation string `json:"operation"`
}

// oasdiffFinding is one element of `oasdiff breaking -f json`; level 3
// is ERR (breaking), 2 WARN.
type oasdiffFinding struct {
	ID          string `json:"id"`
	Level       int    `json:"level"`
	OperationID string `json:"operationId"`
}

// compare runs both tools on one pair.
func (t *tools) compare(p specpairs.Pair) (result, error) {
	r := result{pair: p.Name}
	out, c, err := run([]string{t.idemgen, "diff", "--format", "json", p.Old, p.New})
	if err != nil {
		return r, err
	}
	r.idemgenCost = c
	if err := json.Unmarshal(out, &r.idemgen); err != nil {
		return r, err
	}
	out, c, err = run(append(append([]string{}, t.oasdiff...), "breaking", p.Old, p.New, "-f", "json"))
	if err != nil {
		return r, err
	}
	r.oasdiffCost = c
	if err := json.Unmarshal(out, &r.oasdiff); err != nil {
		return r, err
	}
	return r, nil
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// sample is one measured run of a command.
type sample struct {
	wall time.Duration
	// cpu is the child's user+system CPU time: steadier than wall time on a
	// shared machine, and above it for a program that uses several cores.
	cpu time.Duration
	// rssKB is the child's peak resident set size in KiB, as wait4 reports
	// it (ru_maxrss is in KiB on Linux).
	rssKB  int64
	err    error
	stderr string
}

// runOnce runs argv in dir with env appended to the environment, and
// measures its wall time and peak RSS. A non-zero exit is reported in err
// together with the first meaningful line of stderr.
func runOnce(ctx context.Context, dir string, env []string, argv ...string) sample {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start), stderr: stderr.String()}
	if cmd.ProcessState != nil {
		s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.rssKB = ru.Maxrss
		}
	}
	if err != nil {
		s.err = fmt.Errorf("%w: %s", err, firstErrorLine(s.stderr))
	}
	return s
}

// runN runs argv n times and keeps the median wall and CPU times and the
// highest peak RSS. The first failure stops the series: a refusal is
// deterministic.
func runN(ctx context.Context, n int, dir string, env []string, argv ...string) sample {
	var ss []sample
	for range n {
		s := runOnce(ctx, dir, env, argv...)
		ss = append(ss, s)
		if s.err != nil {
			break
		}
	}
	return medianSample(ss)
}

// medianSample folds runs into one sample: the first failure if any, else
// the median wall and CPU times and the highest peak RSS.
func medianSample(ss []sample) sample {
	var walls, cpus []time.Duration
	var best sample
	for _, s := range ss {
		if s.err != nil {
			return s
		}
		walls, cpus = append(walls, s.wall), append(cpus, s.cpu)
		best.rssKB = max(best.rssKB, s.rssKB)
	}
	best.wall, best.cpu = medianOf(walls), medianOf(cpus)
	return best
}

// medianOf returns the median of ds (the upper one for an even count).
func medianOf(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// logPrefixes mark lines that precede the actual error: structured logs
// (ogen logs with zap) and the "# package" header of go build. They
// say nothing about why a run failed.
var logPrefixes = []string{"INFO", "WARN", "DEBUG", "go: downloading", "# "}

// firstErrorLine returns the first line of stderr that is neither blank
// nor a log line, trimmed, so a refusal fits in one table cell.
func firstErrorLine(stderr string) string {
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimPrefix(line, "- "))
		if line == "" || hasAnyPrefix(line, logPrefixes) {
			continue
		}
		return line
	}
	return "(no message)"
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// errMissing marks a contender whose binary is absent, so its rows say
// "not built" instead of failing the whole table.
var errMissing = errors.New("binary not found")

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// topologyCPU is the CPU time used so far by this process (the load
// generator: self) and, in all, by it and by every process in the process group of one of its
// children (the servers, HAProxy, each PostgreSQL node with its backends),
// read from /proc: the load curve divides it by the wall time to say how
// many of the machine's cores a cell kept busy.
func topologyCPU() (all, self time.Duration) {
	groups := map[string]bool{}
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, pid := range strings.Fields(string(b)) {
			groups[pid] = true
		}
	}
	me := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue // exited since the glob
		}
		// The fields after the command's closing parenthesis: state is
		// [0], pgrp [2], utime [11], stime [12].
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 13 || !groups[f[2]] && filepath.Base(filepath.Dir(s)) != me {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		used := time.Duration(u+k) * clockTick
		all += used
		if filepath.Base(filepath.Dir(s)) == me {
			self = used
		}
	}
	return all, self
}

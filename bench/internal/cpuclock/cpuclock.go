// Package cpuclock reads the CPU time of the benchmark process, for the
// cpu-ns/op metric of the overhead and large-response benchmarks.
package cpuclock

import (
	"syscall"
	"time"
)

// Used is the CPU time (user + system) this process has used. Per op it
// is steadier than wall time on a shared machine: other processes' load
// delays a call but does not add to its CPU time. It covers client and
// server, whose share is the same for every contender.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

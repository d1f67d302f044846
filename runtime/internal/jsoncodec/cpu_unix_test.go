//go:build unix

package jsoncodec_test

import (
	"syscall"
	"time"
)

// threadCPU is the calling thread's CPU time (getrusage RUSAGE_THREAD on
// Linux; the process's elsewhere, still blind to a loaded machine's waits),
// or -1 where it cannot be read.
func threadCPU() time.Duration {
	who := syscall.RUSAGE_SELF
	if rusageThread != 0 {
		who = rusageThread
	}
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

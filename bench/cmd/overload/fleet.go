package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// Under -split the two processes stand for a server on cores of its own and
// a fleet of 1,000 machines, on one machine of two cores that the fleet
// alone can fill. Two settings bring the run closer to that:
//
//   - The server process asks for nice -20, so the kernel runs its threads
//     first when both want a core, as it would on cores of its own. Without
//     the privilege it says so and runs at the fleet's priority.
//   - The fleet process collects garbage at GOGC 800 (-fleetgc): one process
//     holding every call of 1,000 clients scans all their goroutines' stacks
//     at each collection, which a fleet of small processes would not (it was
//     a quarter of the fleet's CPU in a profile at the default GOGC).
//
// Neither touches the code under test: the generated client and server.

// prioritize gives every thread of this process nice -20; threads started
// later inherit it from the thread that starts them (Linux keeps a nice
// value per thread).
func prioritize() {
	if err := renice(-20); err != nil {
		fmt.Fprintf(os.Stderr, "overload: the server runs at the fleet's priority (nice -20: %v)\n", err)
	}
}

func renice(n int) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil {
			return err
		}
	}
	return nil
}

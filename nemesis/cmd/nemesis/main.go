// Command nemesis runs the exactly-once nemesis over the deployed topology
// (docs/reliability.md): a PostgreSQL primary and synchronous standby,
// three generated servers behind HAProxy, a JetStream cluster of three
// nodes with a consumer, client processes with call journals and
// reconcilers, and Toxiproxy on the links; it injects a seeded schedule of
// faults during an open-loop workload, lets the reconcilers settle, and
// checks the whole history.
//
//	nemesis run --short                   # fixed seed, about three minutes
//	nemesis run --seed N --duration D     # the long mode
//	nemesis load                          # the load curve (docs/benchmarks.md)
//
// The same binary is every process of the topology: "nemesis server",
// "nemesis client", "nemesis consumer" and "nemesis natsd" are the roles
// the run starts. It exits 1 when the checker finds a violation, 2 when the
// topology could not be run.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nemesis run|load|server|client|consumer|natsd [flags]")
		os.Exit(2)
	}
	roles := map[string]func([]string) error{
		"server": serverMain, "client": clientMain, "consumer": consumerMain, "natsd": natsdMain,
	}
	if os.Args[1] == "run" {
		os.Exit(runMain(os.Args[2:]))
	}
	if os.Args[1] == "load" {
		os.Exit(loadMain(os.Args[2:]))
	}
	role, ok := roles[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "nemesis: unknown role %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := role(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "nemesis %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

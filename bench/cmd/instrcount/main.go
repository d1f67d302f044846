// Command instrcount counts the machine instructions one benchmark
// iteration executes, with valgrind's callgrind, for every client of the
// overhead benchmarks, and prints them against the floor client.
//
// Wall and CPU time per call swing by 10% to 40% when other processes share
// the machine; instruction counts do not, so they settle "is idemgen within
// 5% of the floor" where ns/op cannot. Each sub-benchmark runs twice, with
// -benchtime n1x and n2x; the difference divided by n2-n1 cancels the fixed
// cost of starting the test binary, the server and the clients. The count
// covers client and server (the same server for every client) and the
// garbage collector's share of the work.
//
//	go test -c -o overhead.test ./overhead
//	instrcount -test ./overhead.test
//
// The measured runs set GODEBUG=asyncpreemptoff=1, because Go's preemption
// signals crash callgrind, and GOMAXPROCS=1, because idle processors spin
// looking for work and how long they spin depends on timing: with one
// processor the same run repeats to within 0.3%, with two it swings by
// several percent. Both change when goroutines switch, not what they
// execute; client and server still run concurrently.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.test, "test", "overhead.test", "the overhead test binary (go test -c)")
	benches := flag.String("benches", "CreateOrder,GetOrder", "benchmarks, without the Benchmark prefix")
	clients := flag.String("clients", "floor,idemgen,oapi-codegen,ogen", "sub-benchmarks; the first is the floor")
	flag.IntVar(&cfg.n1, "n1", 400, "iterations of the short run")
	flag.IntVar(&cfg.n2, "n2", 2400, "iterations of the long run")
	flag.Parse()
	cfg.benches, cfg.clients = strings.Split(*benches, ","), strings.Split(*clients, ",")
	if cfg.n2 <= cfg.n1 || cfg.n1 < 1 || len(cfg.clients) == 0 {
		fmt.Fprintln(os.Stderr, "instrcount: need 1 <= -n1 < -n2 and at least one client")
		os.Exit(2)
	}
	if err := run(cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "instrcount:", err)
		os.Exit(1)
	}
}

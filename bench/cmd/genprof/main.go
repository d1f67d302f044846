// Command genprof runs idemgen's pipeline in process (parser.Load, then
// generator.Generate; nothing is written) and reports how long each phase
// took, optionally under the CPU profiler, to find where generation time
// goes on one document:
//
//	genprof -cpuprofile cpu.prof SPEC && go tool pprof -top genprof cpu.prof
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/parser"
)

func main() {
	cpu := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genprof [-cpuprofile FILE] SPEC")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *cpu); err != nil {
		fmt.Fprintln(os.Stderr, "genprof:", err)
		os.Exit(1)
	}
}

// run times both phases on spec, profiling them into cpuFile when set.
func run(spec, cpuFile string) error {
	if cpuFile != "" {
		f, err := os.Create(cpuFile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	api, diags, err := parser.Load(spec, parser.Options{})
	if err != nil {
		return err
	}
	loaded := time.Since(start)
	out, err := generator.Generate(api, generator.Config{Package: "api", SkipUnsupported: true})
	if err != nil {
		return err
	}
	var size int
	for _, f := range out.Files {
		size += len(f.Content)
	}
	fmt.Printf("load %v (%d diagnostics), generate %v (%d files, %d bytes)\n",
		loaded.Round(time.Millisecond), len(diags), (time.Since(start) - loaded).Round(time.Millisecond),
		len(out.Files), size)
	return nil
}

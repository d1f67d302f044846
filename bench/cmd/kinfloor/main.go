// Command kinfloor is the floor of the generation table: it loads one
// OpenAPI document with kin-openapi and validates it, the least work any
// generator built on kin-openapi must do before it can emit a line.
//
// Validation errors are printed but do not fail the run: real documents
// often break strict rules, and the floor measures the cost of checking,
// not the verdict. A document the loader itself refuses exits 1. With
// -load-only it stops after loading: the lower floor, for a generator that
// does its own, lighter checks instead of the strict Validate.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

func main() {
	loadOnly := flag.Bool("load-only", false, "load the document but do not validate it")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: kinfloor [-load-only] SPEC")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), !*loadOnly); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run loads path and, if validate, validates it, reporting both phases'
// durations on stdout.
func run(path string, validate bool) error {
	start := time.Now()
	// The loader with its defaults: no origins, no external references.
	// idemgen's parser loads the same way (it locates findings with its own
	// YAML node tree), so this is the least work it could do.
	doc, err := openapi3.NewLoader().LoadFromFile(path)
	if err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	loaded := time.Since(start)
	if !validate {
		fmt.Printf("load %v paths %d\n", loaded, doc.Paths.Len())
		return nil
	}
	verr := doc.Validate(context.Background())
	fmt.Printf("load %v validate %v paths %d\n", loaded, time.Since(start)-loaded, doc.Paths.Len())
	if verr != nil {
		fmt.Printf("validation (ignored): %v\n", firstLine(verr.Error()))
	}
	return nil
}

// firstLine keeps the first line of a possibly long multi-error message.
func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

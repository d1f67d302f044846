// Command diffpeer compares `idemgen diff` with oasdiff (the anchor for
// breaking-change detection) on the real pairs of harness/specpairs and
// prints Markdown tables: what each reports as breaking, how many
// operations its breaking findings name (idemgen names a type's change once,
// at the type, and no operation; oasdiff names every operation reaching
// it), and what each costs (wall time and peak RSS of the command). From
// bench/:
//
//	go run ./cmd/diffpeer                      # the petstore pair (seconds)
//	go run ./cmd/diffpeer -pairs all           # with both Stripe pairs (oasdiff: minutes, about 4 GB)
//	bench/run.sh diff                          # the same, oasdiff installed pinned into bench/.bin
//
// oasdiff runs as `oasdiff breaking OLD NEW -f json`, the binary given by
// -oasdiff, else `go run github.com/oasdiff/oasdiff@v1.39.0` outside the
// workspace, so its dependencies never enter a go.mod of this repository.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// Oasdiff is the pinned peer.
const Oasdiff = "github.com/oasdiff/oasdiff@v1.39.0"

func main() {
	log.SetFlags(0)
	pairs := flag.String("pairs", "petstore", "pairs to compare: petstore, stripe-mock, shared-stripe (comma-separated), or all")
	oasdiff := flag.String("oasdiff", "", "oasdiff binary (default: go run "+Oasdiff+")")
	shared := flag.String("shared", filepath.Join("..", "..", "shared", "specs"), "the folder of ../shared/specs")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "diffpeer")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	tools, err := newTools(tmp, *oasdiff)
	if err != nil {
		log.Fatal(err)
	}
	ps, err := selectPairs(*pairs, *shared, tmp)
	if err != nil {
		log.Fatal(err)
	}
	var rows []result
	for _, p := range ps {
		r, err := tools.compare(p)
		if err != nil {
			log.Fatalf("%s: %v", p.Name, err)
		}
		rows = append(rows, r)
	}
	fmt.Print(markdown(rows))
}

// splitPairs reads -pairs.
func splitPairs(s string) []string {
	if s == "all" {
		return []string{"petstore", "stripe-mock", "shared-stripe"}
	}
	return strings.Split(s, ",")
}

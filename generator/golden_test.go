package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// goldenSpecs lists every valid spec of testdata/specs: each top-level
// YAML/JSON file, and each directory's api.yaml (multi-file documents). The
// golden package is named after the file or directory.
func goldenSpecs(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && !strings.HasPrefix(name, "bad"):
			if p := filepath.Join(dir, name, "api.yaml"); fileExists(p) {
				specs[name] = p
			}
		case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".json"):
			specs[strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".json")] = filepath.Join(dir, name)
		}
	}
	return specs
}

// serverGoldens are the golden packages generated with --server: the client
// and the server in one package, sharing the models.
var serverGoldens = map[string]bool{"apikeys": true, "conformance": true, "duplicateids": true, "media": true, "orders": true, "petstore": true, "routing": true, "streaming": true, "streaming32": true, "webhooks": true}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestGolden generates every valid spec into golden/<name>/ and compares
// the bytes (go test -update rewrites them). It generates each twice to prove
// determinism, and reports generated files that no longer belong (removing
// them under -update). Hand-written files there, such as behavior_test.go,
// are left alone: only files starting with the generated header count.
func TestGolden(t *testing.T) {
	root := testutil.ModuleRoot(t)
	for name, spec := range goldenSpecs(t) {
		t.Run(name, func(t *testing.T) {
			api, diags, err := parser.Load(spec, parser.Options{})
			if err != nil || diags.HasErrors() {
				t.Fatalf("loading %s: %v\n%v", spec, err, diags.Errors())
			}
			first, err := Generate(api, Config{Package: name, Server: serverGoldens[name]})
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			api2, _, _ := parser.Load(spec, parser.Options{})
			second, err := Generate(api2, Config{Package: name, Server: serverGoldens[name]})
			if err != nil {
				t.Fatal(err)
			}
			if err := typeCheckFiles(t, first.Files); err != nil {
				t.Error(err)
			}
			dir := filepath.Join(root, "golden", name)
			want := map[string]bool{}
			for i, f := range first.Files {
				want[f.Name] = true
				if !bytes.Equal(f.Content, second.Files[i].Content) {
					t.Errorf("%s: two runs differ", f.Name)
				}
				testutil.Golden(t, filepath.Join(dir, f.Name), f.Content)
			}
			checkStale(t, dir, want)
		})
	}
}

// checkStale finds generated files in dir that the generator no longer
// writes.
func checkStale(t *testing.T, dir string, want map[string]bool) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var stale []string
	for _, e := range entries {
		if want[e.Name()] || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !bytes.HasPrefix(data, []byte(Header)) {
			continue
		}
		if *testutil.Update {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Error(err)
			}
			continue
		}
		stale = append(stale, e.Name())
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("stale generated files in %s (run go test -update): %v", dir, stale)
	}
}

// TestBadGenSpecs checks the exact error text for documents that load but
// hold constructs the generator refuses (testdata/specs/bad-gen/<name>.yaml
// against <name>.err).
func TestBadGenSpecs(t *testing.T) {
	dir := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "bad-gen")
	specs, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(specs) == 0 {
		t.Fatal("no specs in testdata/specs/bad-gen")
	}
	for _, spec := range specs {
		name := strings.TrimSuffix(filepath.Base(spec), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(spec)
			if err != nil {
				t.Fatal(err)
			}
			api, diags, err := parser.LoadData(filepath.Base(spec), data, parser.Options{})
			if err != nil || diags.HasErrors() {
				t.Fatalf("the spec must load cleanly (it tests the generator): %v %v", err, diags.Errors())
			}
			_, genErr := Generate(api, Config{Package: "bad"})
			if genErr == nil {
				t.Fatal("Generate accepted the spec")
			}
			testutil.Golden(t, filepath.Join(dir, name+".err"), []byte(genErr.Error()+"\n"))
		})
	}
}

package parser

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// validSpecs lists the specs of testdata/specs the generator turns into
// golden packages (every top-level YAML and JSON file, plus the multi-file
// root): they must load without a single error.
func validSpecs(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "*.yaml"))
	jsonNames, _ := filepath.Glob(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "*.json"))
	names = append(names, jsonNames...)
	if err != nil || len(names) == 0 {
		t.Fatalf("no valid specs found: %v", err)
	}
	specs := []string{"multifile/api.yaml"}
	for _, n := range names {
		specs = append(specs, filepath.Base(n))
	}
	return specs
}

// TestValidSpecsIR loads each valid spec and compares a text dump of its IR
// with testdata/ir/<name>.txt: every naming, ordering and retry decision is
// pinned, and loading twice must give the same dump.
func TestValidSpecsIR(t *testing.T) {
	root := testutil.ModuleRoot(t)
	for _, spec := range validSpecs(t) {
		t.Run(spec, func(t *testing.T) {
			path := filepath.Join(root, "testdata", "specs", filepath.FromSlash(spec))
			api, diags, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diags.HasErrors() {
				t.Fatalf("valid spec has errors:\n%v", diags.Errors())
			}
			got := dumpAPI(api)
			again, _, _ := Load(path, Options{})
			if dumpAPI(again) != got {
				t.Error("two loads of the same spec differ")
			}
			name := strings.TrimSuffix(strings.TrimSuffix(strings.ReplaceAll(spec, "/", "-"), ".yaml"), ".json")
			testutil.Golden(t, filepath.Join("testdata", "ir", name+".txt"), []byte(got))
		})
	}
}

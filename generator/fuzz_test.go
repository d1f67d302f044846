package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// FuzzGenerate feeds documents through the parser and the generator: for
// whatever the parser accepts, Generate must not panic, must never produce
// source that does not parse (its "render" error means a generator bug), and
// what it returns must type-check with go/types against the real runtime
// source. The seeds are the specs of testdata/specs (and the hostile ones of
// testdata/fuzz); they run as ordinary tests.
func FuzzGenerate(f *testing.F) {
	root := testutil.ModuleRoot(f)
	for _, pattern := range []string{"*.yaml", "*.json", "bad-gen/*.yaml"} {
		paths, _ := filepath.Glob(filepath.Join(root, "testdata", "specs", pattern))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	hostile, err := os.ReadFile(filepath.Join("testdata", "hostile-text.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.ReplaceAll(hostile, []byte("@@"), []byte(yamlQuoted(hostileTexts["kitchen"]))))
	testutil.WarmTypeCheck(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		api, diags, err := parser.LoadData("fuzz.yaml", data, parser.Options{})
		if err != nil || api == nil || diags.HasErrors() {
			return
		}
		checked := false
		for _, skip := range []bool{false, true} {
			out, err := Generate(api, Config{Package: "fuzz", SkipUnsupported: skip})
			// Type-check one package per input: when nothing had to be
			// skipped the second rendering is the same package.
			if err == nil && !checked {
				checked = true
				if err := typeCheckFiles(t, out.Files); err != nil {
					t.Fatal(err)
				}
			}
			if ds, ok := err.(ir.Diagnostics); ok {
				for _, d := range ds {
					if d.Rule == "render" {
						t.Fatalf("generated source does not parse: %v", d)
					}
				}
			} else if err != nil {
				t.Fatalf("Generate returned a %T, want ir.Diagnostics: %v", err, err)
			}
		}
	})
}

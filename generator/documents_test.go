package generator

import (
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// forEachDocument runs check, in a subtest, on every document of the
// repository's testdata/specs and, unless -short, on every real-world one.
func forEachDocument(t *testing.T, check func(t *testing.T, api *ir.API)) {
	specs, _ := filepath.Glob(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "*"))
	if dir := testutil.SharedSpecsDir(t); dir != "" && !testing.Short() {
		real, _ := filepath.Glob(filepath.Join(dir, "*"))
		specs = append(specs, real...)
	}
	for _, spec := range specs {
		if ext := filepath.Ext(spec); ext != ".yaml" && ext != ".json" {
			continue
		}
		t.Run(filepath.Base(spec), func(t *testing.T) {
			api, diags, err := parser.Load(spec, parser.Options{})
			if err != nil || diags.HasErrors() {
				t.Fatal(err, diags.Errors())
			}
			check(t, api)
		})
	}
}

// preparedGen returns a generator for api as Generate has it just before
// rendering (names reserved, uploads marked), and the operations it keeps.
func preparedGen(api *ir.API) (*generation, []*ir.Operation) {
	g := newGen(api, Config{Package: "api", SkipUnsupported: true})
	ops, _ := g.supportedOps()
	g.reserveNames(ops)
	g.markUploads(ops)
	return g, ops
}

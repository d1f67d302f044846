package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// TestAnnotatePaginationRoundTrip: annotate -w writes every inferred
// pagination contract of testdata/specs/paginated.yaml as x-pagination, and
// the parser reads back the same contracts, now at the operation level,
// with no pagination-inferred finding left.
func TestAnnotatePaginationRoundTrip(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "paginated.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	before, _, err := parser.LoadData("paginated.yaml", src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(t.TempDir(), "paginated.yaml")
	writeFile(t, spec, string(src))
	if r := runFake(t, &fake{}, "annotate", "-w", spec); r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	after, diags, err := parser.Load(spec, parser.Options{})
	if err != nil || diags.HasErrors() || len(diags.Infos()) > 0 {
		t.Fatalf("reloading: %v\n%v", err, diags)
	}
	inferred := 0
	for i, op := range before.Operations {
		b, a := op.Pagination, after.Operations[i].Pagination
		if b == nil || b.Level != ir.LevelInferred {
			continue
		}
		inferred++
		if a == nil || a.Level != ir.LevelOperation {
			t.Errorf("%s: after annotate %+v", op.ID, a)
			continue
		}
		bs, as := *b, *a
		bs.Level, bs.Source, as.Level, as.Source = 0, ir.Source{}, 0, ir.Source{}
		if !reflect.DeepEqual(bs, as) {
			t.Errorf("%s: inferred %s, annotated %s", op.ID, parser.PaginationSummary(&bs), parser.PaginationSummary(&as))
		}
	}
	if inferred != 6 {
		t.Errorf("%d inferred operations, want 6", inferred)
	}
}

package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
)

// TestInferredPaginationCounts logs, for every shared real-world spec, how
// many operations are inferred as paginated, by kind (the table of
// docs/extensions.md, "Inference"). GitHub and Stripe page hundreds.
func TestInferredPaginationCounts(t *testing.T) {
	dir := testutil.RealSpecs(t, "loads every shared spec")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []ir.PaginationKind{ir.PageCursor, ir.PageOffset, ir.PagePage, ir.PageLink}
	var table strings.Builder
	table.WriteString("| spec | operations | paginated | cursor | offset | page | link |\n|---|---|---|---|---|---|---|\n")
	want := map[string]int{"github-api.json": 100, "stripe-spec3-2023-09.yaml": 100}
	for _, e := range entries {
		name := e.Name()
		if ext := filepath.Ext(name); ext != ".json" && ext != ".yaml" {
			continue
		}
		api, _, err := Load(filepath.Join(dir, name), Options{})
		if err != nil || api == nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		byKind := map[ir.PaginationKind]int{}
		total := 0
		for _, op := range api.Operations {
			if p := op.Pagination; p != nil && p.Level == ir.LevelInferred {
				byKind[p.Kind]++
				total++
			}
		}
		fmt.Fprintf(&table, "| %s | %d | %d |", name, len(api.Operations), total)
		for _, k := range kinds {
			fmt.Fprintf(&table, " %d |", byKind[k])
		}
		table.WriteString("\n")
		if min, ok := want[name]; ok && total < min {
			t.Errorf("%s: %d operations inferred as paginated, want at least %d", name, total, min)
		}
	}
	t.Logf("inferred pagination:\n%s", table.String())
}

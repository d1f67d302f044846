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

// renderDiags prints diagnostics one per line, as the bad specs' golden
// files hold them: the located text, then severity and rule.
func renderDiags(ds ir.Diagnostics) []byte {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s [%s %s]\n", d.String(), d.Severity, d.Rule)
	}
	return []byte(b.String())
}

// TestBadSpecs loads every testdata/specs/bad/<name>.yaml (one kind of
// invalid annotation each: at least one error) and compares all its
// diagnostics with <name>.err.
func TestBadSpecs(t *testing.T) {
	checkSpecDir(t, "bad", true)
}

// TestLintSpecs does the same for testdata/specs/lint/, whose specs are
// valid but suspicious or repaired: warnings only.
func TestLintSpecs(t *testing.T) {
	checkSpecDir(t, "lint", false)
}

func checkSpecDir(t *testing.T, dir string, wantErrors bool) {
	files, err := filepath.Glob(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no specs found in %s: %v", dir, err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			api, diags, err := LoadData(name, data, Options{})
			if err != nil {
				t.Fatalf("LoadData: %v", err)
			}
			if api == nil || len(diags) == 0 {
				t.Fatalf("a bad spec must load and report findings; got api=%v, %d diagnostics", api != nil, len(diags))
			}
			if diags.HasErrors() != wantErrors {
				t.Errorf("HasErrors() = %v, want %v", diags.HasErrors(), wantErrors)
			}
			testutil.Golden(t, strings.TrimSuffix(file, ".yaml")+".err", renderDiags(diags))
		})
	}
}

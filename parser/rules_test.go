package parser

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestRulesDocumented keeps docs/extensions.md's rule tables complete: every
// rule id declared in diag.go (and waiters.go) appears there in backquotes.
func TestRulesDocumented(t *testing.T) {
	src, err := os.ReadFile("diag.go")
	if err != nil {
		t.Fatal(err)
	}
	waiters, err := os.ReadFile("waiters.go")
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, waiters...)
	doc, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "docs", "extensions.md"))
	if err != nil {
		t.Fatal(err)
	}
	ids := regexp.MustCompile(`\trule\w+\s+= "([a-z-]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(ids) < 20 {
		t.Fatalf("found only %d rule ids in diag.go", len(ids))
	}
	for _, m := range ids {
		if !strings.Contains(string(doc), "| `"+m[1]+"` |") {
			t.Errorf("rule %q is not in docs/extensions.md", m[1])
		}
	}
}

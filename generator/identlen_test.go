package generator

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// maxIdentLen is the longest exported identifier generated code may
// declare or use.
const maxIdentLen = 80

// TestRealWorldIdentifierLength generates every real document and fails on
// any exported identifier in the code longer than maxIdentLen: the parser
// names inline schemas after their member, not their whole path, and
// shortens the document's own long names. Skipped under -short.
func TestRealWorldIdentifierLength(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates every real-world spec")
	for _, name := range []string{"petstore-expanded.yaml", "twilio-api-v2010.yaml", "discord.json", "openai.yaml",
		"stripe-spec3-2023-09.yaml", "github-api.json"} {
		t.Run(name, func(t *testing.T) {
			api, diags, err := parser.Load(filepath.Join(dir, name), parser.Options{})
			if err != nil || diags.HasErrors() {
				t.Fatalf("load: %v %v", err, diags.Errors())
			}
			out, err := Generate(api, Config{Package: "x"})
			if err != nil {
				t.Fatal(err)
			}
			long := longIdents(t, out.Files)
			for _, id := range long[:min(len(long), 20)] {
				t.Errorf("%d characters: %s", len(id), id)
			}
			if len(long) > 20 {
				t.Errorf("... and %d more", len(long)-20)
			}
		})
	}
}

// longIdents lists the exported identifiers over maxIdentLen in files,
// sorted and without repeats.
func longIdents(t *testing.T, files []File) []string {
	t.Helper()
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if filepath.Ext(f.Name) != ".go" {
			continue
		}
		af, err := goparser.ParseFile(fset, f.Name, f.Content, goparser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.IsExported() && len(id.Name) > maxIdentLen {
				seen[id.Name] = true
			}
			return true
		})
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

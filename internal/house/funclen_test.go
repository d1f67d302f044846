// Package house holds tests of the house rules that span the repository.
package house

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxLines is the longest function the house allows outside tests and
// generated code.
const maxLines = 60

// funcLength is one function's length in lines, from func to closing brace.
type funcLength struct {
	where string
	lines int
}

// TestNoFunctionOverSixtyLines counts every function of the repository's
// hand-written Go (all modules; not tests, generated code, goldens, bench or
// testdata) with go/ast and fails on any longer than maxLines.
func TestNoFunctionOverSixtyLines(t *testing.T) {
	all := functionLengths(t, filepath.Join("..", ".."))
	var long []string
	for _, f := range all {
		if f.lines > maxLines {
			long = append(long, f.where)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lines < all[j].lines })
	if len(all) > 0 {
		t.Logf("%d functions; median %d lines, p90 %d, longest %d (%s)", len(all),
			all[len(all)/2].lines, all[len(all)*9/10].lines, all[len(all)-1].lines, all[len(all)-1].where)
	}
	if len(long) > 0 {
		t.Fatalf("functions over %d lines:\n%s", maxLines, strings.Join(long, "\n"))
	}
}

// functionLengths parses the hand-written Go files below root.
func functionLengths(t *testing.T, root string) []funcLength {
	t.Helper()
	fset := token.NewFileSet()
	var out []funcLength
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !handWritten(rel) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || strings.Contains(string(src), "// Code generated ") {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				out = append(out, funcLength{where: fmt.Sprintf("%s:%s (%d lines)", rel, fn.Name.Name, n), lines: n})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// skipDir reports whether a directory holds no hand-written code of the
// house's: goldens, the benchmark module, test data, hidden directories.
func skipDir(rel, name string) bool {
	return rel == "golden" || rel == "bench" || name == "testdata" || (strings.HasPrefix(name, ".") && rel != ".")
}

// handWritten reports whether a file is hand-written Go other than a test.
func handWritten(rel string) bool {
	return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !strings.HasSuffix(rel, "_gen.go")
}

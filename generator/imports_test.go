package generator

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportTable enforces STYLE.md's import table for this package: the
// standard library, ir, templates and jennifer only. The generator never
// sees kin-openapi types, and never imports the runtime it targets.
func TestImportTable(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	allowed := map[string]bool{
		"github.com/idemgen/idemgen/ir":        true,
		"github.com/idemgen/idemgen/templates": true,
		"github.com/dave/jennifer/jen":         true,
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.SplitN(path, "/", 2)[0], ".") && !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

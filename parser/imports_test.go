package parser

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports enforces the package table of STYLE.md: parser may import the
// standard library, ir, kin-openapi and the YAML parser, and nothing else of
// the module (the generator must never reach kin-openapi through it).
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"github.com/idemgen/idemgen/ir", "github.com/getkin/kin-openapi/", "go.yaml.in/yaml/v3"}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(strings.Split(path, "/")[0], ".") {
				continue // standard library
			}
			ok := false
			for _, a := range allowed {
				ok = ok || path == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(path, a))
			}
			if !ok {
				t.Errorf("%s imports %s", file, path)
			}
		}
	}
}

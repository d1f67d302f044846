package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestAPIListsEveryClientMethod reads every golden package: its API
// interface names every exported method of *Client. The generated
// assertion `var _ API = (*Client)(nil)`, compiled with the goldens, shows
// the signatures agree; this shows no method is missing from API.
func TestAPIListsEveryClientMethod(t *testing.T) {
	root := testutil.ModuleRoot(t)
	for name := range goldenSpecs(t) {
		t.Run(name, func(t *testing.T) {
			client, api := clientAndAPIMethods(t, filepath.Join(root, "golden", name))
			if len(client) == 0 {
				t.Fatal("no Client methods found")
			}
			if !slices.Equal(client, api) {
				t.Fatalf("Client's exported methods:\n%s\nAPI's methods:\n%s", strings.Join(client, " "), strings.Join(api, " "))
			}
		})
	}
}

// clientAndAPIMethods parses the generated files of a golden package and
// returns the exported methods of *Client and the methods of API, sorted.
func clientAndAPIMethods(t *testing.T, dir string) (client, api []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.IsExported() && receiverIs(d.Recv, "Client") {
					client = append(client, d.Name.Name)
				}
			case *ast.GenDecl:
				api = append(api, interfaceMethods(d, "API")...)
			}
		}
	}
	slices.Sort(client)
	slices.Sort(api)
	return client, api
}

// receiverIs reports a receiver of type *name.
func receiverIs(recv *ast.FieldList, name string) bool {
	star, ok := recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == name
}

// interfaceMethods returns the method names of the interface type name
// declared in d, if d declares it.
func interfaceMethods(d *ast.GenDecl, name string) []string {
	var out []string
	for _, spec := range d.Specs {
		ts, ok := spec.(*ast.TypeSpec)
		if !ok || ts.Name.Name != name {
			continue
		}
		if it, ok := ts.Type.(*ast.InterfaceType); ok {
			for _, m := range it.Methods.List {
				for _, n := range m.Names {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}

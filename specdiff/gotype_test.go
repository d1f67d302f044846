package specdiff

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/ir"
	idemparser "github.com/idemgen/idemgen/parser"
)

// notFollowed are the fields whose generated type diff does not model: a
// pointer the generator adds to break a recursive type (its choice follows
// the whole type graph), and a multipart file part (idemrt.File). diff
// compares their types without that pointer or wrapper, on both sides.
var notFollowed = map[string]bool{
	"Chain.Next": true, "EventReceipt.Parent": true, "UploadRequest.File": true,
}

// TestGoTypesFollowTheGenerator: the Go type diff gives every member of
// every struct is the one the generator writes in models_gen.go, for the
// diff pairs' base and the specs with the most type shapes.
func TestGoTypesFollowTheGenerator(t *testing.T) {
	for _, spec := range []string{filepath.Join(casesDir, "base.yaml"), "../testdata/specs/orders.yaml", "../testdata/specs/composition.yaml", "../testdata/specs/conformance.yaml"} {
		api, _, err := idemparser.Load(spec, idemparser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fields := generatedFields(t, api)
		checked := 0
		for _, s := range api.Schemas {
			if s.Kind != ir.KindObject {
				continue
			}
			for _, p := range s.Properties {
				got, ok := fields[s.GoName+"."+p.GoName]
				if !ok || notFollowed[s.GoName+"."+p.GoName] {
					continue
				}
				checked++
				if want := fieldType(p); got != want {
					t.Errorf("%s: %s.%s: the generator writes %s, diff reads %s", spec, s.GoName, p.GoName, got, want)
				}
			}
		}
		if checked < 5 {
			t.Errorf("%s: only %d fields checked", spec, checked)
		}
	}
}

// generatedFields returns "Type.Field" -> the field's Go type as printed,
// for every struct of the generated models_gen.go.
func generatedFields(t *testing.T, api *ir.API) map[string]string {
	t.Helper()
	out, err := generator.Generate(api, generator.Config{Package: "api"})
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range out.Files {
		if f.Name != "models_gen.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f.Name, f.Content, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, fl := range st.Fields.List {
				var b bytes.Buffer
				_ = printer.Fprint(&b, fset, fl.Type)
				for _, name := range fl.Names {
					fields[ts.Name.Name+"."+name.Name] = b.String()
				}
			}
			return false
		})
	}
	return fields
}

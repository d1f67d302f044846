package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	idemparser "github.com/idemgen/idemgen/parser"
)

// TestRealWorldNamesReadTrue generates every document in ../shared/specs and
// counts, over the generated Go, (a) the operations whose body, parameter or
// result type is named after another operation and (b) the types named after
// one field and used by fields of other names. Component names are left out:
// the document chose them. Both counts must be 0. Skipped under -short.
func TestRealWorldNamesReadTrue(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates every real-world spec")
	specs, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, spec := range specs {
		ext := filepath.Ext(spec)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		name := packageName(strings.TrimSuffix(filepath.Base(spec), ext))
		api, diags, err := idemparser.Load(spec, idemparser.Options{})
		if err != nil || diags.HasErrors() {
			t.Errorf("%s: load: %v %v", name, err, diags.Errors())
			continue
		}
		out, err := Generate(api, Config{Package: name})
		if err != nil {
			t.Errorf("%s: generate: %v", name, err)
			continue
		}
		components := map[string]bool{}
		for _, s := range api.Schemas {
			if !s.Inline {
				components[s.GoName] = true
			}
		}
		var ops []string
		for _, op := range api.Operations {
			ops = append(ops, op.GoName)
		}
		c := countNames(t, out.Files, ops, components)
		t.Logf("%s: %d of %d operations use a type named after another operation %v; %d types named after one field on %d fields of other names %v",
			name, len(c.misnamedOps), len(ops), firstN(c.misnamedOps, 5), len(c.fieldTypes), c.fields, firstN(c.fieldTypes, 5))
		if len(c.misnamedOps)+len(c.fieldTypes) > 0 {
			t.Errorf("%s: %d operations and %d types are named after something else", name, len(c.misnamedOps), len(c.fieldTypes))
		}
	}
}

// nameCounts is what countNames finds.
type nameCounts struct {
	// misnamedOps are "Op(Type)" for each operation whose signature names
	// another operation.
	misnamedOps []string
	// fieldTypes are "Type(Field, Other...)" for each type named after
	// one field and used by fields of other names; fields counts those.
	fieldTypes []string
	fields     int
}

// countNames parses the generated files and counts the names that mislead.
func countNames(t *testing.T, files []File, ops []string, components map[string]bool) nameCounts {
	t.Helper()
	isOp := map[string]bool{}
	for _, op := range ops {
		isOp[op] = true
	}
	fset := token.NewFileSet()
	declared := map[string]bool{} // non-alias types of the package
	fieldsOf := map[string]map[string]bool{}
	var c nameCounts
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		af, err := parser.ParseFile(fset, f.Name, f.Content, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				collectTypes(d, declared, fieldsOf)
			case *ast.FuncDecl:
				if d.Recv == nil || !isOp[d.Name.Name] || recvName(d) != "Client" {
					continue
				}
				for _, typ := range signatureTypes(d) {
					if owner := opPrefix(typ, isOp); owner != "" && owner != d.Name.Name && !components[typ] {
						c.misnamedOps = append(c.misnamedOps, d.Name.Name+"("+typ+")")
						break
					}
				}
			}
		}
	}
	for typ, fields := range fieldsOf {
		if !declared[typ] || components[typ] || len(fields) < 2 || shapeNamed.MatchString(typ) {
			continue
		}
		var after, others []string
		for f := range fields {
			if namedAfterField(typ, f) {
				after = append(after, f)
			}
		}
		for f := range fields {
			if !namedAfterField(typ, f) && !endsWithAny(f, after) {
				others = append(others, f)
			}
		}
		if len(after) > 0 && len(others) > 0 {
			sort.Strings(others)
			c.fieldTypes = append(c.fieldTypes, typ+"("+strings.Join(firstN(others, 3), ",")+")")
			c.fields += len(others)
		}
	}
	sort.Strings(c.fieldTypes)
	return c
}

// shapeNamed matches the names of unions named by their variants
// ("StringOrEmpty"), which name no field.
var shapeNamed = regexp.MustCompile(`[a-z0-9]Or[A-Z]`)

// collectTypes records the non-alias type declarations and, for each named
// type a struct field uses, the names of the fields that use it.
func collectTypes(d *ast.GenDecl, declared map[string]bool, fieldsOf map[string]map[string]bool) {
	for _, sp := range d.Specs {
		ts, ok := sp.(*ast.TypeSpec)
		if !ok {
			continue
		}
		if !ts.Assign.IsValid() {
			declared[ts.Name.Name] = true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, fl := range st.Fields.List {
			typ := baseIdent(fl.Type)
			for _, n := range fl.Names {
				if typ != "" && n.IsExported() {
					if fieldsOf[typ] == nil {
						fieldsOf[typ] = map[string]bool{}
					}
					fieldsOf[typ][n.Name] = true
				}
			}
		}
	}
}

// signatureTypes lists the package types a method takes and returns.
func signatureTypes(d *ast.FuncDecl) []string {
	var out []string
	for _, fl := range append(append([]*ast.Field(nil), d.Type.Params.List...), resultsOf(d)...) {
		if n := baseIdent(fl.Type); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func resultsOf(d *ast.FuncDecl) []*ast.Field {
	if d.Type.Results == nil {
		return nil
	}
	return d.Type.Results.List
}

func recvName(d *ast.FuncDecl) string { return baseIdent(d.Recv.List[0].Type) }

// baseIdent is the package-local type name under pointers, slices, maps and
// variadics, or "".
func baseIdent(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.StarExpr:
			e = x.X
		case *ast.ArrayType:
			e = x.Elt
		case *ast.MapType:
			e = x.Value
		case *ast.Ellipsis:
			e = x.Elt
		default:
			return ""
		}
	}
}

// opPrefix is the longest operation name typ starts with, or "".
func opPrefix(typ string, isOp map[string]bool) string {
	for n := len(typ); n > 0; n-- {
		if isOp[typ[:n]] {
			return typ[:n]
		}
	}
	return ""
}

// namedAfterField reports whether a type's name ends with a field's name,
// once the words that mark an element or a value are dropped.
func namedAfterField(typ, field string) bool {
	for {
		if strings.HasSuffix(typ, field) {
			return true
		}
		trimmed := strings.TrimSuffix(strings.TrimSuffix(typ, "Item"), "Value")
		if trimmed == typ {
			return false
		}
		typ = trimmed
	}
}

// endsWithAny reports whether a field's name ends with one of names
// ("AnnounceMethod" reads true with a type named after "Method").
func endsWithAny(field string, names []string) bool {
	for _, n := range names {
		if strings.HasSuffix(field, n) {
			return true
		}
	}
	return false
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

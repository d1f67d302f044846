package uniontest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/golden/composition"
	"github.com/idemgen/idemgen/golden/conformance"
	"github.com/idemgen/idemgen/golden/mastodon"
	"github.com/idemgen/idemgen/golden/openapi31"
	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// roots are the golden packages whose specs declare unions, each by the
// types its unions are reached from (the client's methods, the server's
// handler).
var roots = map[string][]reflect.Type{
	"composition": {reflect.TypeFor[*composition.Client]()},
	"conformance": {reflect.TypeFor[*conformance.Client](), reflect.TypeFor[conformance.Handler]()},
	"mastodon":    {reflect.TypeFor[*mastodon.Client]()},
	"openapi31":   {reflect.TypeFor[*openapi31.Client]()},
}

// TestValuesValidForOneVariantDecodeIntoIt: for every union of every golden
// spec, values made up from each variant's schema that kin-openapi's
// validator finds valid for that variant and no other decode into that
// variant alone (the generated UnmarshalJSON, as a client decodes a
// response). Values a variant and another both accept are left out: a
// oneOf decoder may then pick either.
func TestValuesValidForOneVariantDecodeIntoIt(t *testing.T) {
	seen := 0
	for name, spec := range goldenSpecs(t) {
		api, _, err := parser.Load(spec, parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		unions := unionsOf(api)
		if len(unions) == 0 {
			continue
		}
		if roots[name] == nil {
			t.Errorf("golden/%s declares unions: add its package to roots", name)
			continue
		}
		doc := loadKin(t, spec)
		types := reachable(roots[name])
		for _, u := range unions {
			typ := types[u.GoName]
			if typ == nil {
				t.Errorf("%s: %s is not reached from roots[%q]", name, u.GoName, name)
				continue
			}
			seen += checkUnion(t, name+"."+u.GoName, typ, kinVariants(t, doc, u.Source.Pointer), doc.IsOpenAPI31OrLater())
		}
	}
	if seen == 0 {
		t.Fatal("no value valid for exactly one variant")
	}
	t.Logf("%d values valid for exactly one variant, each decoded into it", seen)
}

// checkUnion decodes every exclusive value of every variant into a new
// value of the union type typ and returns how many it decoded.
func checkUnion(t *testing.T, name string, typ reflect.Type, variants []*openapi3.Schema, v31 bool) int {
	fields := variantFields(typ)
	if len(fields) != len(variants) {
		t.Errorf("%s: %d variant fields, %d variants in the document", name, len(fields), len(variants))
		return 0
	}
	n := 0
	for i, vs := range variants {
		exclusive := 0
		for _, c := range candidates(vs, variants, i) {
			if !validFor(c, variants, v31, i) {
				continue
			}
			exclusive++
			data, _ := json.Marshal(c)
			u := reflect.New(typ)
			if err := json.Unmarshal(data, u.Interface()); err != nil {
				t.Errorf("%s: %s (valid only as %s): %v", name, data, fields[i].Name, err)
				continue
			}
			if set := setFields(u.Elem(), fields); len(set) != 1 || set[0] != fields[i].Name {
				t.Errorf("%s: %s (valid only as %s) decoded into %v", name, data, fields[i].Name, set)
			}
		}
		if exclusive == 0 {
			t.Logf("%s: no made-up value is valid for %s alone", name, fields[i].Name)
		}
		n += exclusive
	}
	return n
}

// candidates are the values made up for variant i: its minimal and full
// values, each also with a member another variant declares and variant i
// does not, set to a value that variant refuses.
func candidates(s *openapi3.Schema, variants []*openapi3.Schema, i int) []any {
	var out []any
	for _, full := range []bool{false, true} {
		base, ok := value(s, full, 0)
		if !ok {
			continue
		}
		out = append(out, base)
		obj, isObj := base.(map[string]any)
		if !isObj {
			continue
		}
		for j, other := range variants {
			if j == i {
				continue
			}
			for _, name := range sortedKeys(other.Properties) {
				if _, declared := s.Properties[name]; declared {
					continue
				}
				for _, bad := range poisons(other.Properties[name].Value, 0) {
					out = append(out, with(obj, name, bad))
				}
			}
		}
	}
	return out
}

// validFor reports whether kin-openapi finds v valid for variant i and for
// no other.
func validFor(v any, variants []*openapi3.Schema, v31 bool, i int) bool {
	var opts []openapi3.SchemaValidationOption
	if v31 {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	for j, s := range variants {
		if (s.VisitJSON(v, opts...) == nil) != (j == i) {
			return false
		}
	}
	return true
}

// with returns a copy of obj with name set to v.
func with(obj map[string]any, name string, v any) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, ov := range obj {
		out[k] = ov
	}
	out[name] = v
	return out
}

func sortedKeys(m openapi3.Schemas) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// variantFields are the exported fields of a generated union: its
// variants, in the document's order.
func variantFields(typ reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() {
			out = append(out, f)
		}
	}
	return out
}

// setFields names the variant fields of u that hold a value.
func setFields(u reflect.Value, fields []reflect.StructField) []string {
	var set []string
	for _, f := range fields {
		if !u.FieldByIndex(f.Index).IsZero() {
			set = append(set, f.Name)
		}
	}
	return set
}

// unionsOf returns the union declarations of api.
func unionsOf(api *ir.API) []*ir.Schema {
	var out []*ir.Schema
	for _, s := range api.Schemas {
		if s.Kind == ir.KindUnion {
			out = append(out, s)
		}
	}
	return out
}

// goldenSpecs lists the valid specs of testdata/specs by golden package
// name, as the generator's golden test does.
func goldenSpecs(t *testing.T) map[string]string {
	dir := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && !strings.HasPrefix(name, "bad"):
			if p := filepath.Join(dir, name, "api.yaml"); fileExists(p) {
				specs[name] = p
			}
		case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".json"):
			specs[strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".json")] = filepath.Join(dir, name)
		}
	}
	return specs
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// loadKin loads spec with kin-openapi, references resolved.
func loadKin(t *testing.T, spec string) *openapi3.T {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromFile(spec)
	if err != nil {
		t.Fatalf("kin-openapi: %s: %v", spec, err)
	}
	return doc
}

// kinVariants returns the variants of the union schema at pointer (a
// component schema or a property of one), without the {type: "null"} that
// makes a union nullable.
func kinVariants(t *testing.T, doc *openapi3.T, pointer string) []*openapi3.Schema {
	toks := jsonpointer.Split(pointer)
	if len(toks) < 3 || toks[0] != "components" || toks[1] != "schemas" {
		t.Fatalf("union at %s: not under /components/schemas", pointer)
	}
	ref := doc.Components.Schemas[toks[2]]
	for k := 3; k+1 < len(toks) && ref != nil; k += 2 {
		if toks[k] != "properties" {
			t.Fatalf("union at %s: %s is not followed", pointer, toks[k])
		}
		ref = ref.Value.Properties[toks[k+1]]
	}
	if ref == nil || ref.Value == nil {
		t.Fatalf("union at %s: not found", pointer)
	}
	alts := ref.Value.OneOf
	if len(alts) == 0 {
		alts = ref.Value.AnyOf
	}
	if len(alts) == 0 && ref.Value.Type != nil {
		return typeVariants(ref.Value)
	}
	var out []*openapi3.Schema
	for _, a := range alts {
		if !isNull(a.Value) {
			out = append(out, a.Value)
		}
	}
	return out
}

// typeVariants splits a union written as a list of types (3.1's
// type: [integer, string]) into one schema per type, null left out.
func typeVariants(s *openapi3.Schema) []*openapi3.Schema {
	var out []*openapi3.Schema
	for _, typ := range *s.Type {
		if typ == openapi3.TypeNull {
			continue
		}
		v := *s
		v.Type = &openapi3.Types{typ}
		out = append(out, &v)
	}
	return out
}

// reachable returns the named types of the roots' package reached from
// them (through method signatures, fields, elements and type arguments),
// by name.
func reachable(roots []reflect.Type) map[string]reflect.Type {
	pkg := roots[0]
	for pkg.Kind() == reflect.Pointer {
		pkg = pkg.Elem()
	}
	out := map[string]reflect.Type{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		if t.PkgPath() == pkg.PkgPath() && t.Name() != "" {
			out[t.Name()] = t
		}
		for i := range t.NumMethod() {
			walk(t.Method(i).Type)
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				walk(t.Field(i).Type)
			}
		case reflect.Func:
			for i := range t.NumIn() {
				walk(t.In(i))
			}
			for i := range t.NumOut() {
				walk(t.Out(i))
			}
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}

package parser

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
)

// realSpecs are the documents of ../shared/specs with their operation counts
// (from that folder's README).
var realSpecs = map[string]int{
	"petstore-expanded.yaml":    4,
	"twilio-api-v2010.yaml":     197,
	"discord.json":              242,
	"openai.yaml":               288,
	"stripe-spec3-2023-09.yaml": 468,
	"github-api.json":           767,
}

// TestRealWorldSpecs loads every real document: no error-severity finding is
// allowed (they are real users' documents; warnings are fine), every
// operation is there, and the IR keeps its invariants.
func TestRealWorldSpecs(t *testing.T) {
	dir := testutil.RealSpecs(t, "")
	for name, ops := range realSpecs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s missing: %v", name, err)
			}
			api, diags, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diags.HasErrors() {
				t.Fatalf("errors:\n%v", diags.Errors())
			}
			if len(api.Operations) != ops {
				t.Errorf("%d operations, want %d", len(api.Operations), ops)
			}
			checkInvariants(t, api)
		})
	}
}

// checkInvariants asserts what the generator relies on: unique valid Go
// names, every use of a named type a KindRef to a listed declaration, alias
// chains that end, and every inline object, enum or union named.
func checkInvariants(t testing.TB, api *ir.API) {
	t.Helper()
	declared := map[*ir.Schema]bool{}
	names := map[string]bool{}
	for _, s := range api.Schemas {
		declared[s] = true
		checkName(t, "schema", s.GoName, names)
	}
	opNames := map[string]bool{}
	for _, op := range api.Operations {
		checkName(t, "operation", op.GoName, opNames)
		paramNames := map[string]bool{}
		for _, p := range op.Params {
			checkName(t, op.GoName+" param", p.GoName, paramNames)
			checkUse(t, p.Type, declared)
		}
		if op.Retry.Safety == ir.Keyed && op.Retry.KeyName == "" {
			t.Errorf("%s is keyed without a key name", op.GoName)
		}
		if op.Body != nil {
			for _, m := range op.Body.Content {
				checkUse(t, m.Schema, declared)
			}
		}
		for _, r := range op.Responses {
			for _, m := range r.Content {
				checkUse(t, m.Schema, declared)
			}
		}
	}
	for _, s := range api.Schemas {
		checkDecl(t, s, declared)
	}
}

func checkName(t testing.TB, what, name string, seen map[string]bool) {
	t.Helper()
	if !token.IsIdentifier(name) || !token.IsExported(name) {
		t.Errorf("%s name %q is not an exported Go identifier", what, name)
	}
	if seen[name] {
		t.Errorf("%s name %q is not unique", what, name)
	}
	seen[name] = true
}

// checkUse checks one anonymous use and what it contains.
func checkUse(t testing.TB, s *ir.Schema, declared map[*ir.Schema]bool) {
	t.Helper()
	if s == nil {
		return
	}
	switch {
	case s.Kind == ir.KindRef && (s.Ref == nil || !declared[s.Ref]):
		t.Errorf("use at %s refers to an undeclared schema", s.Source.Pointer)
		return
	case s.Kind == ir.KindRef:
		return
	case s.GoName == "" && (s.Kind == ir.KindObject || s.Kind == ir.KindEnum || s.Kind == ir.KindUnion):
		t.Errorf("inline %s at %s has no name", s.Kind, s.Source.Pointer)
	}
	checkMembers(t, s, declared)
}

func checkDecl(t testing.TB, s *ir.Schema, declared map[*ir.Schema]bool) {
	t.Helper()
	steps := 0
	for d := s; d != nil && d.Kind == ir.KindRef; d = d.Ref {
		if steps++; steps > len(declared) {
			t.Errorf("schema %s: alias chain does not end", s.GoName)
			return
		}
	}
	if s.Kind == ir.KindRef {
		checkUse(t, s, declared)
		return
	}
	checkMembers(t, s, declared)
}

func checkMembers(t testing.TB, s *ir.Schema, declared map[*ir.Schema]bool) {
	t.Helper()
	checkUse(t, s.Items, declared)
	checkUse(t, s.AdditionalProperties, declared)
	props := map[string]bool{}
	for _, p := range s.Properties {
		checkName(t, "property of "+s.GoName, p.GoName, props)
		checkUse(t, p.Type, declared)
	}
	for _, v := range s.Variants {
		checkUse(t, v, declared)
	}
	consts := map[string]bool{}
	for _, e := range s.Enum {
		checkName(t, "enum value of "+s.GoName, e.GoName, consts)
	}
	if s.Discriminator != nil {
		for _, m := range s.Discriminator.Mapping {
			if !declared[m.Schema] {
				t.Errorf("%s: discriminator value %q maps to an undeclared schema", s.GoName, m.Value)
			}
		}
	}
}

// BenchmarkLoad measures Load on every real document (ms/op is the figure
// the docs quote for the largest, github-api.json and stripe).
func BenchmarkLoad(b *testing.B) {
	dir := testutil.SharedSpecsDir(b)
	if dir == "" {
		b.Skip("../shared/specs not found")
	}
	for _, name := range []string{"petstore-expanded.yaml", "twilio-api-v2010.yaml", "discord.json", "openai.yaml", "stripe-spec3-2023-09.yaml", "github-api.json"} {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(dir, name)
			for b.Loop() {
				if _, _, err := Load(path, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKinLoad is the floor Load is compared with: kin-openapi alone
// loading the same documents (no origins, no validation).
func BenchmarkKinLoad(b *testing.B) {
	dir := testutil.SharedSpecsDir(b)
	if dir == "" {
		b.Skip("../shared/specs not found")
	}
	for _, name := range []string{"twilio-api-v2010.yaml", "discord.json", "openai.yaml", "stripe-spec3-2023-09.yaml", "github-api.json"} {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(dir, name)
			for b.Loop() {
				kl := openapi3.NewLoader()
				kl.IsExternalRefsAllowed = true
				if _, err := kl.LoadFromFile(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

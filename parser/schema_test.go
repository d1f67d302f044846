package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// loadSchemas loads a document whose components.schemas is given, and
// returns its declarations by name with the diagnostics.
func loadSchemas(t *testing.T, schemas string) (map[string]*ir.Schema, ir.Diagnostics) {
	t.Helper()
	spec := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n" + schemas
	api, diags, err := LoadData("s.yaml", []byte(spec), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags)
	}
	out := map[string]*ir.Schema{}
	for _, s := range api.Schemas {
		out[s.GoName] = s
	}
	return out, diags
}

func TestSchemaConversion(t *testing.T) {
	tests := []struct {
		name, schemas, decl, want, rules string
	}{
		{"narrowing variants leave the object", `
    Run:
      type: object
      properties: {status: {type: string}, conclusion: {type: string}}
      oneOf:
        - {properties: {status: {enum: [completed]}}, required: [conclusion]}
        - {properties: {status: {enum: [queued]}}}
`, "Run", "object conclusion=string status=string", ""},
		{"constraint variants leave the object", `
    Patch:
      type: object
      properties: {a: {type: string}, b: {type: string}}
      anyOf: [{required: [a]}, {required: [b]}]
`, "Patch", "object a=string b=string", ""},
		{"real variants beside properties warn", `
    U:
      type: object
      properties: {a: {type: string}}
      oneOf: [{$ref: "#/components/schemas/V"}, {type: string}]
    V: {type: object, properties: {b: {type: integer}}}
`, "U", "oneOf ref:V b=integer/false string", ruleUnsupportedSchema},
		{"oneOf with null is a nullable use", `
    Holder:
      type: object
      properties:
        v: {oneOf: [{$ref: "#/components/schemas/V"}, {type: "null"}]}
    V: {type: object, properties: {b: {type: integer}}}
`, "Holder", "object v=ref:V?", ""},
		{"type list with null", `
    N: {type: object, properties: {n: {type: [integer, "null"], format: int64}}}
`, "N", "object n=integer<int64>?", ""},
		{"several types become a oneOf", `
    M: {type: object, properties: {m: {type: [string, integer]}}}
`, "M", "object m=ref:MM", ""},
		{"allOf conflict warns, later wins", `
    A: {type: object, properties: {x: {type: string}}}
    B:
      allOf:
        - $ref: "#/components/schemas/A"
        - {type: object, properties: {x: {type: integer}}}
`, "B", "object x=integer", ruleAllOfConflict},
		{"allOf refinement is no conflict", `
    A: {type: object, properties: {kind: {type: string}}}
    B:
      allOf:
        - $ref: "#/components/schemas/A"
        - {type: object, properties: {kind: {type: string, enum: [b]}}}
`, "B", "object kind=ref:BKind", ""},
		{"allOf over a union distributes", `
    A: {type: object, properties: {type: {type: string}, a: {type: string}}}
    B: {type: object, properties: {type: {type: string}, b: {type: integer}}}
    Event:
      allOf:
        - oneOf: [{$ref: "#/components/schemas/A"}, {$ref: "#/components/schemas/B"}]
          discriminator: {propertyName: type, mapping: {a: "#/components/schemas/A"}}
        - {type: object, required: [id], properties: {id: {type: string}}}
`, "Event", "oneOf ref:EventA a=string/false id=string/true type=string/false ref:EventB b=integer/false id=string/true type=string/false B->EventB a->EventA", ""},
		{"const is a one-value enum", `
    C: {type: string, const: fixed}
`, "C", "enum(string)", ""},
		{"boolean enum is a boolean", `
    T: {type: boolean, enum: [true]}
`, "T", "bool", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decls, diags := loadSchemas(t, tt.schemas)
			d := decls[tt.decl]
			if d == nil {
				t.Fatalf("no declaration %s among %v", tt.decl, decls)
			}
			got := schemaText(d, true)
			for _, p := range d.Properties {
				got += " " + p.Name + "=" + schemaText(p.Type, false)
			}
			for _, v := range d.Variants {
				got += " " + schemaText(v, false)
				for _, p := range v.Deref().Properties {
					got += fmt.Sprintf(" %s=%s/%v", p.Name, schemaText(p.Type, false), p.Required)
				}
			}
			if d.Discriminator != nil {
				for _, m := range d.Discriminator.Mapping {
					got += " " + m.Value + "->" + m.Schema.GoName
				}
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if r := rules(diags); r != tt.rules {
				t.Errorf("rules %q, want %q: %v", r, tt.rules, diags)
			}
		})
	}
}

func TestIgnoredHeaderParameters(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - {name: Accept, in: header, schema: {type: string}}
        - {name: content-type, in: header, schema: {type: string}}
        - {name: X-Trace, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
`
	api, diags, err := LoadData("h.yaml", []byte(spec), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ps := api.Operations[0].Params; len(ps) != 1 || ps[0].Name != "X-Trace" {
		t.Errorf("params %v", ps)
	}
	if r := rules(diags); r != strings.TrimSuffix(strings.Repeat(ruleUnsupportedParam+",", 2), ",") {
		t.Errorf("rules %q", r)
	}
}

package parser

import (
	"strings"
	"testing"
)

// TestShapeRepairs mutates a one-operation document into shapes kin-openapi
// refuses to decode: each still loads its operation, with warnings only.
func TestShapeRepairs(t *testing.T) {
	base := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a/{id}:
    get:
      operationId: getA
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok}
`
	tests := []struct{ name, from, to, rule string }{
		{"required as a string", "required: true", `required: "true"`, ruleShape},
		{"style as a number", "required: true,", "required: true, style: 5,", ruleShape},
		{"operationId as a number", "operationId: getA", "operationId: 123", ruleShape},
		{"tags as a string", "operationId: getA", "operationId: getA\n      tags: a", ruleShape},
		{"servers as a map", "paths:", "servers: {url: x}\npaths:", ruleShape},
		{"security as a map", "paths:", "security: {a: []}\npaths:", ruleShape},
		{"responses as a list", `"200": {description: ok}`, `- 200`, ruleShape},
		{"description as a number", `{description: ok}`, `{description: 5}`, ruleShape},
		{"content as a list", `{description: ok}`, `{description: ok, content: [a]}`, ruleShape},
		{"schema as a string", "schema: {type: string}", "schema: string", ruleShape},
		{"duplicate member", "operationId: getA", "operationId: first\n      operationId: getA", ruleDuplicateKey},
		{"integer response key", `"200": {description: ok}`, `200: {description: ok}`, ""},
		// The pointer kin-openapi names holds a space: it is read up to the
		// end of the message, not up to the first blank.
		{"path with a space", "/a/{id}:\n    get:\n      operationId: getA", "/a b/{id}:\n    get:\n      operationId: 5", ruleShape},
		{"two failures in one load", "required: true", `required: "true", deprecated: "false"`, ruleShape + "," + ruleShape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := strings.Replace(base, tt.from, tt.to, 1)
			api, diags, err := LoadData("m.yaml", []byte(spec), Options{})
			if err != nil || diags.HasErrors() || len(api.Operations) != 1 {
				t.Fatalf("got %v %v\n%s", err, diags, spec)
			}
			if got := rules(diags); got != tt.rule {
				t.Errorf("rules %q, want %q: %v", got, tt.rule, diags)
			}
			if d := diags; len(d) > 0 && d[0].Line == 0 {
				t.Errorf("unlocated repair: %v", d[0])
			}
		})
	}
}

package mock_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

// unionQuerySpec has Discord's two query shapes: a oneOf of a string and a
// list, and a list of a oneOf of constants.
const unionQuerySpec = `openapi: 3.0.3
info: {title: union, version: "1"}
paths:
  /entitlements:
    get:
      operationId: listEntitlements
      parameters:
        - name: sku_ids
          in: query
          schema:
            oneOf:
              - {type: string, pattern: "^[0-9]+$"}
              - {type: array, maxItems: 3, items: {type: string, pattern: "^[0-9]+$"}}
        - name: author_type
          in: query
          schema:
            type: array
            items:
              oneOf:
                - {type: string, enum: [user]}
                - {type: string, enum: [bot]}
                - {type: string, enum: [webhook]}
      responses:
        "204": {description: none}
`

// TestUnionQueryParametersPickTheirVariant: a value, or several, of a
// union query parameter is validated against the variant it fits
// (kin-openapi's decoder refused Discord's sku_ids and author_type).
func TestUnionQueryParametersPickTheirVariant(t *testing.T) {
	path := filepath.Join(t.TempDir(), "union.yaml")
	if err := os.WriteFile(path, []byte(unionQuerySpec), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := idemgenmock.Start(t, path)
	for query, want := range map[string]int{
		"sku_ids=1":                               http.StatusNoContent,
		"sku_ids=1&sku_ids=2":                     http.StatusNoContent,
		"author_type=user":                        http.StatusNoContent,
		"author_type=user&author_type=bot":        http.StatusNoContent,
		"sku_ids=x":                               http.StatusBadRequest,
		"sku_ids=1&sku_ids=y":                     http.StatusBadRequest,
		"sku_ids=1&sku_ids=2&sku_ids=3&sku_ids=4": http.StatusBadRequest,
		"author_type=system":                      http.StatusBadRequest,
	} {
		if resp, body := do(t, "GET", srv.URL+"/entitlements?"+query, ""); resp.StatusCode != want {
			t.Errorf("%s: %d %s, want %d", query, resp.StatusCode, body, want)
		}
	}
}

// TestTypedUnionOfConstantsTakesItsType: an integer with a oneOf of
// constants (Discord's action_type) reads its value as an integer, in an
// OpenAPI 3.1 document validated as JSON Schema 2020-12 (const counts).
func TestTypedUnionOfConstantsTakesItsType(t *testing.T) {
	spec := `openapi: 3.1.0
info: {title: audit, version: "1"}
paths:
  /audit:
    get:
      operationId: listAudit
      parameters:
        - name: action_type
          in: query
          schema:
            type: integer
            oneOf:
              - {title: UPDATE, const: 1}
              - {title: CREATE, const: 10}
      responses:
        "204": {description: none}
`
	path := filepath.Join(t.TempDir(), "audit.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := idemgenmock.Start(t, path)
	for query, want := range map[string]int{"action_type=10": 204, "action_type=1": 204, "action_type=2": 400, "action_type=x": 400} {
		if resp, body := do(t, "GET", srv.URL+"/audit?"+query, ""); resp.StatusCode != want {
			t.Errorf("%s: %d %s, want %d", query, resp.StatusCode, body, want)
		}
	}
}

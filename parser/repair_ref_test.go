package parser

import "testing"

// TestRepairNamesEveryOperation: a refused reference inside a QUERY operation
// names the operation, like one inside a GET (the operation keys are ir.OperationMethod's).
func TestRepairNamesEveryOperation(t *testing.T) {
	spec := `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /search:
    query:
      operationId: searchThings
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: 'https://example.com/s.yaml#/S'}}}
`
	_, diags, err := LoadData("t.yaml", []byte(spec), Options{})
	if err != nil || len(diags) != 1 {
		t.Fatalf("%v %v", err, diags)
	}
	if d := diags[0]; d.Rule != ruleRemoteRef || d.Operation != "searchThings" {
		t.Errorf("got %+v, want a remote-ref error naming searchThings", d)
	}
}

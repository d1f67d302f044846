package parser

import (
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestLookupFieldUnion: a field path through a union must exist in every
// variant (Stripe's external accounts: bank_account | card, both with id).
func TestLookupFieldUnion(t *testing.T) {
	obj := func(names ...string) *ir.Schema {
		s := &ir.Schema{Kind: ir.KindObject}
		for _, n := range names {
			s.Properties = append(s.Properties, &ir.Property{Name: n, Type: &ir.Schema{Kind: ir.KindAny}})
		}
		return s
	}
	u := &ir.Schema{Kind: ir.KindUnion, Variants: []*ir.Schema{obj("id", "last4"), obj("id", "brand")}}
	for f, want := range map[string]bool{"id": true, "last4": false, "nope": false} {
		if _, found := lookupField(u, ir.Field{f}); found != want {
			t.Errorf("%s: found %v, want %v", f, found, want)
		}
	}
}

// kratosLists has Ory Kratos's list shapes (its v1.3.1 document): a bare
// array body, a deprecated page + per_page pair and the page_token +
// page_size pair it pages by, through a Link header it does not declare;
// then the same with a declared Link over an envelope, and a bare array
// with page numbers only.
const kratosLists = `openapi: 3.0.3
info: {title: kratos, version: "1"}
paths:
  /sessions:
    get:
      operationId: listMySessions
      parameters:
        - {name: per_page, in: query, schema: {type: integer}}
        - {name: page, in: query, schema: {type: integer}}
        - {name: page_size, in: query, schema: {type: integer}}
        - {name: page_token, in: query, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {type: string}}}}}
  /schemas:
    get:
      operationId: listIdentitySchemas
      parameters:
        - {name: page, in: query, schema: {type: integer}}
        - {name: per_page, in: query, schema: {type: integer}}
      responses:
        "200":
          description: ok
          headers: {link: {schema: {type: string}}}
          content: {application/json: {schema: {type: object, properties: {schemas: {type: array, items: {type: string}}}}}}
  /photos:
    get:
      operationId: listPhotos
      parameters:
        - {name: page, in: query, schema: {type: integer}}
        - {name: per_page, in: query, schema: {type: integer}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {type: string}}}}}
`

// TestInferLinkBeforePageNumbers: a list that declares a Link header, or
// takes an opaque page token its bare array body has no room to return,
// pages by the Link header; page numbers are inferred only without either.
func TestInferLinkBeforePageNumbers(t *testing.T) {
	api, diags, err := LoadData("kratos.yaml", []byte(kratosLists), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("%v %v", err, diags.Errors())
	}
	want := map[string]ir.PaginationKind{"listMySessions": ir.PageLink, "listIdentitySchemas": ir.PageLink, "listPhotos": ir.PagePage}
	for _, op := range api.Operations {
		if op.Pagination == nil || op.Pagination.Kind != want[op.ID] {
			t.Errorf("%s: %+v, want %s", op.ID, op.Pagination, want[op.ID])
		}
	}
}

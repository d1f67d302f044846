package generator

import (
	"strings"
	"testing"

	specparser "github.com/idemgen/idemgen/parser"
)

// pagerEdges is a document of the iterator cases beside the golden's
// plain ones: nullable fields, an integer cursor, a named enum parameter,
// a POST search with a body, a cursor Go fields cannot reach (an untyped
// member with a hostile name), items through a union, a boolean cursor
// parameter, and an operation whose Iter name another one has.
const pagerEdges = `
openapi: 3.0.3
info: {title: edges, version: "1"}
paths:
  /nullable:
    get:
      operationId: listNullable
      x-pagination: {kind: offset, param: offset, items: entries, hasMore: more, total: total}
      parameters:
        - {name: offset, in: query, schema: {type: integer, format: int32}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [total]
                properties:
                  entries: {type: array, nullable: true, items: {type: string}}
                  more: {type: boolean, nullable: true}
                  total: {type: integer}
  /numbered:
    get:
      operationId: listNumbered
      x-pagination: {kind: cursor, param: token, cursor: meta.next, items: data}
      parameters:
        - {name: token, in: query, schema: {$ref: "#/components/schemas/Token"}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {type: string, nullable: true}}
                  meta: {type: object, properties: {next: {type: integer, nullable: true}}}
  /search:
    post:
      operationId: search
      x-pagination: {kind: cursor, param: after, cursor: "/raw/ne\"xt\n//go:generate echo PWNED", items: hits}
      parameters:
        - {name: after, in: query, schema: {type: string}}
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, properties: {q: {type: string}}}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  hits: {type: array, items: {type: string}}
                  raw: {}
  /unions:
    get:
      operationId: listUnion
      x-pagination: {kind: cursor, param: after, cursor: next, items: box.data}
      parameters:
        - {name: after, in: query, schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  next: {type: string}
                  box:
                    oneOf:
                      - {type: object, properties: {kind: {type: string}, data: {type: array, items: {type: string}}}}
                      - {type: object, properties: {size: {type: integer}, data: {type: array, items: {type: string}}}}
  /flags:
    get:
      operationId: listFlags
      x-pagination: {kind: cursor, param: flag, cursor: next, items: data}
      parameters:
        - {name: flag, in: query, schema: {type: boolean}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {next: {type: string}, data: {type: array, items: {type: string}}}}
  /things:
    get:
      operationId: listThings
      x-pagination: {kind: page, param: page, items: .}
      parameters:
        - {name: page, in: query, schema: {type: integer}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {type: string}}}}}
  /things-iter:
    get:
      operationId: listThingsIter
      responses:
        "204": {description: none}
components:
  schemas:
    Token: {type: string, enum: [a, b]}
`

// TestPagerEdges: the iterators of pagerEdges type-check, read each field
// the typed way where Go types allow it, fall back to idemrt.JSONField where
// they do not, keep spec text out of code, and leave a comment instead of
// iterators where the page cannot be read with certainty.
func TestPagerEdges(t *testing.T) {
	api, diags, err := specparser.LoadData("edges.yaml", []byte(pagerEdges), specparser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags.Errors())
	}
	out, err := Generate(api, Config{Package: "edges"})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
	checkNoCodeFromText(t, "edges", out.Files)
	var src strings.Builder
	for _, f := range out.Files {
		src.Write(f.Content)
	}
	got := src.String()
	for _, want := range []string{
		"list, ok := p.Entries.Get()", // a nullable optional array
		"v, ok := p.More.Get()",       // a nullable optional boolean
		"return int64(p.Total), true", // a required integer
		"v, ok := p.Meta.Next.Get()",  // a nullable integer cursor: absent is no cursor, not "0"
		"return strconv.FormatInt(int64(v), 10)",
		"idemrt.Pager[ListNumberedResponse, *string]", // nullable items are pointers
		"idemrt.SetCursor(&params.Token, cursor)",     // a named enum parameter
		"func (c *Client) SearchIter(ctx context.Context, body SearchRequest, params SearchParams", // the body of a POST search
		`return idemrt.JSONField(p, "raw", "ne\"xt\n", "", "go:generate echo PWNED")`,              // untyped: through JSON
		"// ListUnion has no iterator methods: the items box.data are not a field of the page type.",
		`// ListFlags has no iterator methods: the cursor parameter "flag" is a bool.`,
		"// ListThings has no iterator methods: ListThingsIter or ListThingsPages is the name of another method.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
}

package parser

import (
	"fmt"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// loadResponse loads a one-operation document whose 200 response has the
// given content (YAML, indented under content:) and returns that response.
func loadResponse(t *testing.T, version, content string) *ir.Response {
	t.Helper()
	doc := fmt.Sprintf(`openapi: %s
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      responses:
        "200":
          description: ok
          content:
%s`, version, content)
	api, diags, err := LoadData("media.yaml", []byte(doc), Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags.Errors())
	}
	return api.Operations[0].Responses[0]
}

// TestStreamFraming: streamed media types are recognised case-insensitively
// and with parameters; the event schema is the media type's schema.
func TestStreamFraming(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want ir.Framing
	}{
		{"text/event-stream", ir.FramingSSE},
		{"Text/Event-Stream; charset=utf-8", ir.FramingSSE},
		{"application/jsonl", ir.FramingJSONLines},
		{"application/x-ndjson", ir.FramingJSONLines},
		{"application/json-seq", ir.FramingJSONSeq},
		{"application/json", ""},
		{"application/octocat-stream", ""},
	} {
		r := loadResponse(t, "3.0.3", "            "+fmt.Sprintf("%q", tc.key)+":\n              schema: {type: object, properties: {a: {type: string}}}\n")
		m := r.Content[0]
		if m.Framing != tc.want {
			t.Errorf("%s: framing %q, want %q", tc.key, m.Framing, tc.want)
		}
		if tc.want != "" && (m.Event == nil || m.Event != m.Schema) {
			t.Errorf("%s: event schema %v, want the media type's schema", tc.key, m.Event)
		}
	}
}

// TestStreamItemSchema: OpenAPI 3.2's itemSchema wins over schema; a
// text/event-stream item describing the whole event gives its data's
// schema (contentSchema, or strings).
func TestStreamItemSchema(t *testing.T) {
	r := loadResponse(t, "3.2.0", `            application/jsonl:
              schema: {type: array, items: {type: string}}
              itemSchema: {type: integer}
`)
	if e := r.Content[0].Event; e == nil || e.Kind != ir.KindInteger {
		t.Errorf("jsonl itemSchema: event %+v, want integer", e)
	}
	r = loadResponse(t, "3.2.0", `            application/jsonl:
              schema: {type: array, items: {type: boolean}}
`)
	if e := r.Content[0].Event; e == nil || e.Kind != ir.KindBool {
		t.Errorf("3.2 jsonl schema describing the whole stream: event %+v, want its items (bool)", e)
	}
	r = loadResponse(t, "3.1.0", `            application/jsonl:
              schema: {type: array, items: {type: boolean}}
`)
	if e := r.Content[0].Event; e == nil || e.Kind != ir.KindArray {
		t.Errorf("3.1 jsonl schema: event %+v, want the schema as written (array)", e)
	}
	r = loadResponse(t, "3.2.0", `            text/event-stream:
              itemSchema:
                type: object
                properties:
                  id: {type: string}
                  data: {type: string, contentMediaType: application/json, contentSchema: {type: number}}
`)
	if e := r.Content[0].Event; e == nil || e.Kind != ir.KindNumber {
		t.Errorf("sse envelope with contentSchema: event %+v, want number", e)
	}
	r = loadResponse(t, "3.2.0", `            text/event-stream:
              itemSchema: {type: object, properties: {data: {type: string}, retry: {type: integer}}}
`)
	if e := r.Content[0].Event; e != nil {
		t.Errorf("sse envelope with string data: event %+v, want nil (strings)", e)
	}
}

// TestBinaryMedia: downloads are binary media types and binary string
// schemas; JSON, text, streams and typed objects are not.
func TestBinaryMedia(t *testing.T) {
	for _, tc := range []struct {
		key, schema string
		want        bool
	}{
		{"application/octet-stream", "{}", true},
		{"application/pdf", "{type: string}", true},
		{"image/png", "{}", true},
		{"Audio/MPEG", "{type: string, format: binary}", true},
		{"application/vnd.acme.blob", "{type: string, format: binary}", true},
		{"application/vnd.acme.blob", "{type: string}", false},
		{"image/png", "{type: object, properties: {a: {type: string}}}", false},
		{"text/plain", "{type: string, format: binary}", false},
		{"application/json", "{type: string, format: binary}", false},
	} {
		r := loadResponse(t, "3.0.3", fmt.Sprintf("            %q:\n              schema: %s\n", tc.key, tc.schema))
		if got := r.Content[0].Binary; got != tc.want {
			t.Errorf("%s %s: binary %v, want %v", tc.key, tc.schema, got, tc.want)
		}
	}
}

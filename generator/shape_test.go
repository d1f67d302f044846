package generator

import (
	"strings"
	"testing"

	"github.com/idemgen/idemgen/parser"
)

// shapeSpec has an operation answering JSON or a stream whose <Op>Stream
// name is taken by another operation, with an optional body that has a
// stream member; an operation that answers JSON or a stream beside a
// download; and one whose only success is a download without a schema.
const shapeSpec = `openapi: 3.0.3
info: {title: shapes, version: "1"}
paths:
  /completions:
    post:
      operationId: createCompletion
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {prompt: {type: string}, stream: {type: boolean}}}
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: object, properties: {text: {type: string}}}}
            text/event-stream: {schema: {type: object, properties: {delta: {type: string}}}}
  /completions/stream:
    get:
      operationId: createCompletionStream
      responses:
        "204": {description: ok}
  /videos/{id}:
    get:
      operationId: getVideo
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: object, properties: {id: {type: string}}}}
            video/mp4: {}
            image/webp: {}
            application/x-ndjson: {schema: {type: integer}}
`

func TestStreamAndDownloadMethods(t *testing.T) {
	api, diags, err := parser.LoadData("shapes.yaml", []byte(shapeSpec), parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags.Errors())
	}
	out, err := Generate(api, Config{Package: "shapes"})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
	methods := clientMethods(t, out.Files)
	for name, want := range map[string]string{
		"CreateCompletion":        "*CreateCompletionResponse",
		"CreateCompletionStream":  "error",
		"CreateCompletionStream_": "*idemrt.Stream[CreateCompletionEvent]",
		"GetVideo":                "*GetVideoResult",
		"GetVideoStream":          "*idemrt.Stream[int64]",
		"GetVideoDownload":        "*idemrt.Body",
	} {
		if methods[name] != want {
			t.Errorf("%s returns %q, want %q", name, methods[name], want)
		}
	}
	src := fileNamed(t, out, "operations_gen.go")
	for _, want := range []string{
		// An optional body may be absent: no member to set then.
		"if body != nil {\n opts = append(opts[:len(opts):len(opts)], idemrt.WithJSONField(\"stream\", true))",
		`b.Header(wire.Param{Name: "Accept", Style: wire.StyleSimple}, "image/webp, video/mp4")`,
		`b.Header(wire.Param{Name: "Accept", Style: wire.StyleSimple}, "application/x-ndjson")`,
		`idemrt.OpenStream[int64](ctx, c.runner, &getVideoOp, req, idemrt.FramingJSONLines, opts...)`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("operations_gen.go lacks %s", want)
		}
	}
}

// acceptSpec's operations declare JSON and text successes with a JSON
// error, a text success with a problem+json error and a redirect body, only
// a JSON error, and no content at all.
const acceptSpec = `openapi: 3.0.3
info: {title: accept, version: "1"}
paths:
  /a:
    get:
      operationId: both
      responses:
        "200": {description: ok, content: {text/csv: {}, application/json: {schema: {type: object}}}}
        "404": {description: no, content: {application/json: {schema: {type: object}}}}
  /b:
    get:
      operationId: csv
      responses:
        "200": {description: ok, content: {text/csv: {}}}
        "303": {description: there, content: {application/json: {schema: {type: object}}}}
        default: {description: no, content: {application/problem+json: {schema: {type: object}}}}
  /c:
    delete:
      operationId: gone
      responses:
        "204": {description: ok}
        "401": {description: no, content: {application/json: {schema: {type: object}}}}
  /d:
    delete:
      operationId: silent
      responses:
        "204": {description: ok}
  /e:
    get:
      operationId: hostile
      responses:
        "200":
          description: ok
          content:
            "application/json\r\nX-Evil: 1": {schema: {type: object}}
            "text/plain, */*": {}
            text/html: {}
`

// TestMainAccept: the main method asks for every declared media type, the
// success's first (JSON before text), the others' ranked below at q=0.9,
// for nothing when no response declares content, and never for a name that
// is not a media range.
func TestMainAccept(t *testing.T) {
	api, diags, err := parser.LoadData("accept.yaml", []byte(acceptSpec), parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags.Errors())
	}
	want := map[string]string{
		"both":   "application/json, text/csv",
		"csv":    "text/csv, application/json;q=0.9, application/problem+json;q=0.9",
		"gone":   "application/json",
		"silent": "",
		// A name that is no media range (a CR/LF, a list) is left out: net/http
		// would refuse to send the header, and every call would fail unsent.
		"hostile": "text/html",
	}
	for _, op := range api.Operations {
		if got := mainAccept(op); got != want[op.ID] {
			t.Errorf("%s: Accept %q, want %q", op.ID, got, want[op.ID])
		}
	}
}

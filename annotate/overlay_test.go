package annotate

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/internal/overlay"
)

// TestOverlayAgreesWithAnnotated applies the overlay form of the edits to
// each test document and finds, at every operation, the x-idempotent the
// annotated document has.
func TestOverlayAgreesWithAnnotated(t *testing.T) {
	for _, name := range []string{"orders.yaml", "payments.json", "crlf.yaml", "tabs.json", "minified.json"} {
		for _, opts := range []Options{{}, {KeyHeader: "Idempotency-Key"}} {
			src := readFile(t, "testdata/"+name)
			res, err := opts.Annotate(src)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Edits) == 0 {
				continue
			}
			ov, err := overlay.Parse("ov.yaml", res.Overlay("t", name))
			if err != nil {
				t.Fatalf("%s: the overlay does not parse: %v\n%s", name, err, res.Overlay("t", name))
			}
			got, want := yamlTree(t, src), yamlTree(t, res.Annotated)
			applied, err := overlay.Apply(got, []*overlay.Document{ov})
			if err != nil || len(applied.Findings) != 0 {
				t.Fatalf("%s: %v %v", name, err, applied)
			}
			for _, e := range res.Edits {
				ptr := jsonpointer.Join("/paths", e.Path, e.methodKey, "x-idempotent")
				if g, w := render(t, at(got, ptr)), render(t, at(want, ptr)); g != w || g == "null\n" {
					t.Errorf("%s %+v: overlay gives %q, annotated %q", name, opts, g, w)
				}
			}
		}
	}
}

func TestKeyHeaderKeysUnannotatedPostAndPatch(t *testing.T) {
	src := []byte(`openapi: 3.0.3
paths:
  /a:
    post: {responses: {}}
    patch: {responses: {}}
    put: {responses: {}}
  /b:
    post: {x-idempotent: false, responses: {}}
  /c:
    post:
      parameters: [{name: idempotency-key, in: header}]
      responses: {}
`)
	res, err := Options{KeyHeader: "X-Key"}.Annotate(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Edits {
		got = append(got, e.Method+" "+e.Path+" "+e.Value.String()+" "+e.KeyName)
	}
	want := "POST /a keyed X-Key|PATCH /a keyed X-Key|PUT /a true |POST /c keyed idempotency-key"
	if strings.Join(got, "|") != want {
		t.Errorf("edits %q, want %q", strings.Join(got, "|"), want)
	}
	ov := string(res.Overlay("keys", ""))
	for _, line := range []string{`  - target: "$.paths['/a'].post"`, `          name: "X-Key"`, `      x-idempotent: true`} {
		if !strings.Contains(ov, line+"\n") {
			t.Errorf("overlay lacks %q:\n%s", line, ov)
		}
	}
	for _, bad := range []string{"*x", "1x", "a b", "true", "Null", "X:Y"} {
		if _, err := (Options{KeyHeader: bad}).Annotate(src); err == nil {
			t.Errorf("key header %q accepted", bad)
		}
	}
}

func TestTarget(t *testing.T) {
	for _, tc := range []struct{ path, method, want string }{
		{"/orders", "post", `$.paths['/orders'].post`},
		{"/it's/{a\\b}", "x-y", `$.paths['/it\'s/{a\\b}']['x-y']`},
		{"/a\nb", "get", `$.paths['/a\u000ab'].get`},
	} {
		if got := Target(tc.path, tc.method); got != tc.want {
			t.Errorf("Target(%q, %q) = %s, want %s", tc.path, tc.method, got, tc.want)
		}
	}
}

func yamlTree(t *testing.T, src []byte) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal(src, &n); err != nil {
		t.Fatal(err)
	}
	return n.Content[0]
}

// at walks a JSON pointer through mappings.
func at(n *yaml.Node, ptr string) *yaml.Node {
	for _, tok := range jsonpointer.Split(ptr) {
		var next *yaml.Node
		for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == tok {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

func render(t *testing.T, n *yaml.Node) string {
	t.Helper()
	if n == nil {
		return "null\n"
	}
	var v any
	if err := n.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

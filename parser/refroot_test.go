package parser

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// secretText is what the files outside the document's folder hold; it must
// never reach a diagnostic or the IR.
const secretText = "TOPSECRET-line-one"

// refSpec is a document whose one response schema is a $ref to ref.
func refSpec(ref string) string {
	return "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /o:\n    get:\n      operationId: getO\n" +
		"      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n" +
		"              schema: {$ref: '" + ref + "'}\n"
}

// outsideTree lays out dir/api (the document's folder) beside dir/secret.yaml
// (a schema) and dir/passwd (not YAML), plus a link inside api to the secret.
func outsideTree(t *testing.T) (dir, api string) {
	t.Helper()
	dir = t.TempDir()
	api = filepath.Join(dir, "api")
	for name, data := range map[string]string{
		"secret.yaml": "Secret:\n  type: object\n  description: " + secretText + "\n",
		"passwd":      secretText + ":x:0:0:root:/root:/bin/sh\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(api, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "secret.yaml"), filepath.Join(api, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	return dir, api
}

// TestRefsStayInTheFolderTree refers, from a document in api/, to files
// outside api/ by absolute path, by ../, through a symbolic link, and to a
// non-YAML file: each is a located ref-outside error that quotes nothing of
// the file, and the file never reaches the IR. --ref-root widens the tree.
func TestRefsStayInTheFolderTree(t *testing.T) {
	dir, api := outsideTree(t)
	refs := map[string]string{
		"absolute": filepath.ToSlash(filepath.Join(dir, "secret.yaml")) + "#/Secret",
		"parent":   "../secret.yaml#/Secret",
		"symlink":  "link.yaml#/Secret",
		"passwd":   filepath.ToSlash(filepath.Join(dir, "passwd")),
		"escape":   "../../../../../../../../../../.." + filepath.ToSlash(filepath.Join(dir, "secret.yaml")) + "#/Secret",
	}
	for name, ref := range refs {
		t.Run(name, func(t *testing.T) {
			spec := filepath.Join(api, name+".yaml")
			if err := os.WriteFile(spec, []byte(refSpec(ref)), 0o644); err != nil {
				t.Fatal(err)
			}
			a, diags, err := Load(spec, Options{})
			if err != nil {
				t.Fatal(err)
			}
			assertRefOutside(t, a, diags, spec)
			if name == "passwd" {
				return
			}
			a, diags, err = Load(spec, Options{RefRoot: dir})
			if err != nil || len(diags) != 0 {
				t.Fatalf("with RefRoot: %v %v", err, diags)
			}
			if s := a.Operations[0].Responses[0].Content[0].Schema; s.Kind != ir.KindRef || s.Ref.GoName != "Secret" {
				t.Errorf("with RefRoot the reference is followed: got %+v", s)
			}
		})
	}
}

// assertRefOutside checks one document's load refused its reference.
func assertRefOutside(t *testing.T, a *ir.API, diags ir.Diagnostics, spec string) {
	t.Helper()
	if len(diags) != 1 || diags[0].Rule != ruleRefOutside || diags[0].Severity != ir.SeverityError {
		t.Fatalf("diagnostics %v, want one ref-outside error", diags)
	}
	d := diags[0]
	want := "/paths/~1o/get/responses/200/content/application~1json/schema"
	if d.File != spec || d.Line != 12 || d.Pointer != want || d.Operation != "getO" {
		t.Errorf("located at %s:%d %s (%s), want %s:12 %s (getO)", d.File, d.Line, d.Pointer, d.Operation, spec, want)
	}
	if strings.Contains(d.String(), secretText) {
		t.Errorf("the diagnostic quotes the file: %s", d)
	}
	if k := a.Operations[0].Responses[0].Content[0].Schema.Kind; k != ir.KindAny {
		t.Errorf("refused reference became %s, want any", k)
	}
	for _, s := range a.Schemas {
		if strings.Contains(s.Description, secretText) {
			t.Errorf("schema %s was read from outside the tree", s.GoName)
		}
	}
}

// TestRemoteDocumentCannotNameLocalFiles serves, with remote references
// allowed, a document whose references are an absolute path and a file://
// URL: the first resolves against the server (never the local disk), the
// second is refused.
func TestRemoteDocumentCannotNameLocalFiles(t *testing.T) {
	dir, _ := outsideTree(t)
	secret := filepath.ToSlash(filepath.Join(dir, "secret.yaml"))
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/abs.yaml":
			w.Write([]byte("Order:\n  $ref: '" + secret + "#/Secret'\n"))
		case "/file.yaml":
			w.Write([]byte("Order:\n  $ref: 'file://" + secret + "#/Secret'\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, doc := range []string{"abs", "file"} {
		a, diags, err := LoadData("remote.yaml", []byte(refSpec(srv.URL+"/"+doc+".yaml#/Order")), Options{AllowRemoteRefs: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diags {
			if strings.Contains(d.String(), secretText) {
				t.Errorf("%s: a diagnostic quotes the local file: %s", doc, d)
			}
		}
		for _, s := range a.Schemas {
			if strings.Contains(s.Description, secretText) {
				t.Errorf("%s: schema %s was read from the local disk", doc, s.GoName)
			}
		}
		if doc == "file" && (len(diags) == 0 || diags[0].Rule != ruleRefOutside) {
			t.Errorf("file:// reference: diagnostics %v, want ref-outside", diags)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !contains(asked, secret) {
		t.Errorf("the absolute path was not resolved against the server: requests %v", asked)
	}
}

package generator

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	idemparser "github.com/idemgen/idemgen/parser"
)

// serverFiles generates spec with --server and returns the files.
func serverFiles(t *testing.T, spec string) map[string]string {
	t.Helper()
	api, diags, err := idemparser.Load(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", spec), idemparser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("loading %s: %v %v", spec, err, diags.Errors())
	}
	out, err := Generate(api, Config{Package: "api", Server: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range out.Files {
		files[f.Name] = string(f.Content)
	}
	return files
}

// TestServerImports: a generated server imports the runtime, the server
// runtime, and the standard library only.
func TestServerImports(t *testing.T) {
	src := serverFiles(t, "orders.yaml")["server_gen.go"]
	f, err := parser.ParseFile(token.NewFileSet(), "server_gen.go", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if strings.Contains(p, ".") && !strings.HasPrefix(p, "github.com/idemgen/idemgen/runtime") &&
			p != srvPath && !strings.HasPrefix(p, "github.com/idemgen/idemgen/ledger") {
			t.Errorf("server_gen.go imports %s", p)
		}
	}
}

// TestServerServesEveryShape: streams, downloads, answers of several
// media types and multipart bodies are Handler methods; nothing in these
// specs answers 501.
func TestServerServesEveryShape(t *testing.T) {
	for _, spec := range []string{"streaming.yaml", "streaming32.yaml", "media.yaml", "conformance.yaml"} {
		src := serverFiles(t, spec)["server_gen.go"]
		if strings.Contains(src, "Not routed") || strings.Contains(src, "e.Unserved(") {
			t.Errorf("%s: operations left unserved", spec)
		}
	}
}

// TestServerModuleRequires: a generated module with --server requires the
// server runtime and the ledger beside the runtime.
func TestServerModuleRequires(t *testing.T) {
	api, _, err := idemparser.Load(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "orders.yaml"), idemparser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(api, Config{Package: "orders", Module: "example.com/orders", Server: true, Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Files {
		if f.Name == "go.mod" {
			for _, want := range []string{"github.com/idemgen/idemgen/server v1.2.3", "github.com/idemgen/idemgen/ledger v1.2.3"} {
				if !strings.Contains(string(f.Content), want) {
					t.Errorf("go.mod lacks %q:\n%s", want, f.Content)
				}
			}
			return
		}
	}
	t.Error("no go.mod")
}

// TestServerCompilesForEveryGoldenSpec: --server output type-checks for
// every golden spec, whatever it declares (streams, unions, forms, odd
// paths are left out with a 501, never generated broken).
func TestServerCompilesForEveryGoldenSpec(t *testing.T) {
	for name, spec := range goldenSpecs(t) {
		t.Run(name, func(t *testing.T) {
			api, diags, err := idemparser.Load(spec, idemparser.Options{})
			if err != nil || diags.HasErrors() {
				t.Fatalf("loading %s: %v %v", spec, err, diags.Errors())
			}
			out, err := Generate(api, Config{Package: name, Server: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := typeCheckFiles(t, out.Files); err != nil {
				t.Error(err)
			}
		})
	}
}

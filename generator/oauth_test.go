package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// TestOAuth2VersionMatchesTheRuntime: a generated module requires the
// golang.org/x/oauth2 the runtime module does.
func TestOAuth2VersionMatchesTheRuntime(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "runtime", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\t"+oauth2Path+" "+OAuth2Version+"\n") {
		t.Errorf("runtime/go.mod does not require %s %s (OAuth2Version)", oauth2Path, OAuth2Version)
	}
}

// TestOAuthModuleRequiresXOAuth2: a module whose client has a client
// credentials option requires golang.org/x/oauth2 (its options name
// oauth2.TokenSource); one without does not.
func TestOAuthModuleRequiresXOAuth2(t *testing.T) {
	root := testutil.ModuleRoot(t)
	for spec, want := range map[string]bool{"oauth.yaml": true, "petstore.yaml": false} {
		api, _, err := parser.Load(filepath.Join(root, "testdata", "specs", spec), parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Generate(api, Config{Package: "sdk", Module: "example.com/sdk"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range out.Files {
			if f.Name == "go.mod" && strings.Contains(string(f.Content), "\nrequire "+oauth2Path+" "+OAuth2Version+"\n") != want {
				t.Errorf("%s: go.mod requires x/oauth2: %v, want %v\n%s", spec, !want, want, f.Content)
			}
		}
	}
}

// TestHostileTokenURLStaysALiteral: a tokenUrl with quotes and Go syntax
// in it (a valid URL path) reaches the generated code as one quoted
// string literal, and the package type-checks.
func TestHostileTokenURLStaysALiteral(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      security: [{cc: []}]
      responses: {"204": {description: ok}}
components:
  securitySchemes:
    cc:
      type: oauth2
      flows:
        clientCredentials:
          tokenUrl: 'https://h/t"+func(){panic(1)}()+"*/` + "`" + `'
          scopes: {"x\"); os.Exit(1); (\"": evil}
`
	api, diags, err := parser.LoadData("t.yaml", []byte(doc), parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	out, err := Generate(api, Config{Package: "sdk"})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Files {
		if f.Name == "client_gen.go" && !strings.Contains(string(f.Content), "TokenURL:     \"https://h/t\\\"+func(){panic(1)}()+\\\"*/`\",") {
			t.Errorf("the tokenUrl is not one escaped literal:\n%s", f.Content)
		}
	}
}

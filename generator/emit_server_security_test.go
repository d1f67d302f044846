package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	specparser "github.com/idemgen/idemgen/parser"
)

// hostileSchemes names security schemes as an attacker would: code in the
// name, a name that is a Go keyword, two names with one GoName, a name of
// digits, a name the generated server itself uses, and an HTTP auth scheme
// holding a header break.
const hostileSchemes = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /things:
    post:
      operationId: createThing
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      security:
        - "x\"); os.Exit(1) //": []
          func: []
        - bearer-auth: []
        - bearer_auth: []
        - "123": []
        - SecurityHandler: []
        - evil: []
      responses:
        "201": {description: ok}
components:
  schemas:
    SecurityHandler: {type: object, properties: {a: {type: string}}}
  securitySchemes:
    "x\"); os.Exit(1) //": {type: apiKey, in: header, name: X-Key}
    func: {type: oauth2, flows: {clientCredentials: {tokenUrl: "https://a.example/t", scopes: {}}}}
    bearer-auth: {type: http, scheme: bearer}
    bearer_auth: {type: http, scheme: basic}
    "123": {type: mutualTLS}
    SecurityHandler: {type: openIdConnect, openIdConnectUrl: "https://a.example/.well-known/openid-configuration"}
    evil: {type: http, scheme: "sig\r\nSet-Cookie: a=b"}
`

// TestHostileSchemeNamesNeverBecomeCode: every scheme gets a method named by
// its GoName (exported, unique, whatever the document wrote), its name
// reaches the code only as a string literal, the SecurityHandler keeps its
// name (the document's schema of that name is renamed), and the package
// type-checks.
func TestHostileSchemeNamesNeverBecomeCode(t *testing.T) {
	api, diags, err := specparser.LoadData("schemes.yaml", []byte(hostileSchemes), specparser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags.Errors())
	}
	out, err := Generate(api, Config{Package: "api", Server: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
	var src, all string
	for _, f := range out.Files {
		all += string(f.Content)
		if f.Name == "server_gen.go" {
			src = string(f.Content)
		}
	}
	file, err := parser.ParseFile(token.NewFileSet(), "server_gen.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	ast.Inspect(file, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "SecurityHandler" {
			for _, m := range ts.Type.(*ast.InterfaceType).Methods.List {
				methods = append(methods, m.Names[0].Name)
			}
		}
		return true
	})
	want := "BearerAuth BearerAuth2 Evil Func N123 SecurityHandler XOSExit1"
	if got := strings.Join(methods, " "); got != want {
		t.Errorf("methods %q, want %q", got, want)
	}
	for _, imp := range file.Imports {
		if imp.Path.Value == `"os"` {
			t.Error("server_gen.go imports os: a scheme name became code")
		}
	}
	if !strings.Contains(src, `idemsrv.APIKeyScheme("x\"); os.Exit(1) //", "header", "X-Key", sh.XOSExit1)`) ||
		!strings.Contains(src, `idemsrv.HTTPScheme("evil", "Sig\r\nset-cookie: a=b", sh.Evil)`) ||
		!strings.Contains(all, "type SecurityHandlerModel struct") {
		t.Errorf("the scheme names are not string literals, or the schema kept the interface's name:\n%s", src)
	}
}

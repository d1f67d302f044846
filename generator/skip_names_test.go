package generator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// loadBadGen loads testdata/specs/bad-gen/<name>, which must load without
// error: the names it tests are the generator's to refuse or skip.
func loadBadGen(t *testing.T, name string) *ir.API {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "bad-gen", name))
	if err != nil {
		t.Fatal(err)
	}
	api, diags, err := parser.LoadData(name, data, parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("%s: %v %v", name, err, diags.Errors())
	}
	return api
}

// skipKey is what a skip report must say: the operation ("" for a
// scheme) and the JSON pointer, in file order.
type skipKey struct{ op, pointer string }

func skipKeys(t *testing.T, file string, ds ir.Diagnostics) []skipKey {
	t.Helper()
	var keys []skipKey
	for _, d := range ds {
		if d.File != file || d.Line == 0 || d.Rule != "header-name" {
			t.Errorf("skip not located in %s with rule header-name: %+v", file, d)
		}
		keys = append(keys, skipKey{d.Operation, d.Pointer})
	}
	return keys
}

// generatedOps lists the client methods of the output.
func generatedOps(out *Output, names ...string) []string {
	var got []string
	for _, name := range names {
		for _, f := range out.Files {
			if strings.Contains(string(f.Content), "func (c *Client) "+name+"(") {
				got = append(got, name)
			}
		}
	}
	return got
}

// TestBadHeaderParameterSkipsItsOperation: a header or cookie parameter, or
// a response header, whose name is not an HTTP token (Notion's header
// parameter named "") refuses the document by default
// (TestBadGenSpecs/header-name-parameter holds the text); under
// SkipUnsupported only the operation that declares it is left out, each
// skip located, and the package compiles.
func TestBadHeaderParameterSkipsItsOperation(t *testing.T) {
	api := loadBadGen(t, "header-name-parameter.yaml")
	if _, err := Generate(api, Config{Package: "pages"}); err == nil {
		t.Fatal("refused by default: Generate accepted the document")
	}
	out, err := Generate(api, Config{Package: "pages", SkipUnsupported: true, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []skipKey{
		{"listPages", "/paths/~1pages/get/parameters/0/name"},
		{"listPages", "/paths/~1pages/get/responses/200/headers/Next Page"},
		{"retrieveAPage", "/paths/~1pages~1{id}/get/parameters/1/name"},
	}
	if got := skipKeys(t, "header-name-parameter.yaml", out.Skipped); !slices.Equal(got, want) {
		t.Errorf("skipped %v, want %v", got, want)
	}
	if got := generatedOps(out, "ListPages", "RetrieveAPage", "UpdatePage"); !slices.Equal(got, []string{"UpdatePage"}) {
		t.Errorf("generated %v, want only UpdatePage", got)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Error(err)
	}
}

// TestBadSchemeNameSkipsOnlyTheScheme: apiKey schemes whose header names
// are not HTTP tokens (RapidAPI's "ADVICEment API Key") refuse the
// document by default; under SkipUnsupported the schemes go, an operation
// offering another scheme keeps it (and loses the requirement that also
// named a bad one), one left with none is skipped, and one without
// security is untouched.
func TestBadSchemeNameSkipsOnlyTheScheme(t *testing.T) {
	api := loadBadGen(t, "header-name-scheme.yaml")
	if _, err := Generate(api, Config{Package: "templates"}); err == nil {
		t.Fatal("refused by default: Generate accepted the document")
	}
	if diags := Check(api); len(diags) != 3 {
		t.Errorf("Check found %d problems, want the two schemes and compile:\n%v", len(diags), diags)
	}
	out, err := Generate(api, Config{Package: "templates", SkipUnsupported: true, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []skipKey{
		{"", "/components/securitySchemes/advKey/name"},
		{"", "/components/securitySchemes/rapidKey/name"},
		{"compile", "/components/securitySchemes/advKey/name"},
	}
	if got := skipKeys(t, "header-name-scheme.yaml", out.Skipped); !slices.Equal(got, want) {
		t.Errorf("skipped %v, want %v", got, want)
	}
	if got := generatedOps(out, "Compile", "Health", "ListTemplates"); !slices.Equal(got, []string{"Health", "ListTemplates"}) {
		t.Errorf("generated %v, want Health and ListTemplates", got)
	}
	server := fileNamed(t, out, "server_gen.go")
	if !strings.Contains(server, `[][]string{{"bearer"}}`) {
		t.Errorf("listTemplates does not keep exactly its bearer alternative:\n%s", server)
	}
	for _, f := range out.Files {
		if strings.Contains(strings.ToLower(string(f.Content)), "rapidkey") {
			t.Errorf("%s still names the dropped scheme", f.Name)
		}
	}
	if len(api.SecuritySchemes) != 3 || len(api.Operations[2].Security) != 3 {
		t.Error("Generate modified the caller's API")
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Error(err)
	}
}

// TestUndeclaredSchemeSkipsOnlyItsRequirements: requirements naming a
// scheme components.securitySchemes does not declare (Kratos's
// "sessionToken") refuse the document by default, one located error per
// name; under SkipUnsupported those requirements go, an operation that
// offers another keeps it, and one left with none is skipped, never
// generated as if it needed no credentials.
func TestUndeclaredSchemeSkipsOnlyItsRequirements(t *testing.T) {
	api := loadBadGen(t, "unknown-security-scheme.yaml")
	_, err := Generate(api, Config{Package: "shop"})
	if err == nil || !strings.Contains(err.Error(), `security scheme "sessionToken" is not defined`) {
		t.Fatalf("refused by default at each undeclared name: %v", err)
	}
	out, err := Generate(api, Config{Package: "shop", SkipUnsupported: true, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []skipKey
	for _, d := range out.Skipped {
		if d.File != "unknown-security-scheme.yaml" || d.Line == 0 || d.Rule != "unknown-security-scheme" {
			t.Errorf("skip not located with rule unknown-security-scheme: %+v", d)
		}
		got = append(got, skipKey{d.Operation, d.Pointer})
	}
	want := []skipKey{
		{"putPayment", "/paths/~1payments/put/security/0/apiKye"},
		{"", "/security/0/bearerAuht"},
		{"updateSettings", "/paths/~1settings/put/security/0/sessionToken"},
		{"putOrder", "/security/0/bearerAuht"},
		{"putPayment", "/paths/~1payments/put/security/0/apiKye"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("skipped %v, want %v", got, want)
	}
	if got := generatedOps(out, "PutOrder", "PutPayment", "UpdateSettings", "Health"); !slices.Equal(got, []string{"UpdateSettings", "Health"}) {
		t.Errorf("generated %v, want UpdateSettings and Health", got)
	}
	server := fileNamed(t, out, "server_gen.go")
	if !strings.Contains(server, `[][]string{{"bearerAuth"}}`) {
		t.Errorf("updateSettings does not keep exactly its bearerAuth alternative:\n%s", server)
	}
	for _, f := range out.Files {
		if strings.Contains(string(f.Content), "sessionToken") {
			t.Errorf("%s still names the undeclared scheme", f.Name)
		}
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Error(err)
	}
}

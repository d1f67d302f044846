package generator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	idemparser "github.com/idemgen/idemgen/parser"
)

// TestServerRoutesEveryPathOfTheRealSpecs: every operation of the real
// specs is routed (Twilio's {Sid}.json paths, GitHub's, OpenAI's and
// Discord's overlapping ones), and the servers type-check; an operation may
// still be answered 501 for what it does (a stream, a download), never for
// its path.
func TestServerRoutesEveryPathOfTheRealSpecs(t *testing.T) {
	dir := testutil.RealSpecs(t, "loads the real-world specs")
	for _, name := range []string{"twilio-api-v2010.yaml", "github-api.json", "openai.yaml", "discord.json"} {
		api, diags, err := idemparser.Load(filepath.Join(dir, name), idemparser.Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: %v %v", name, err, diags.Errors())
		}
		routed := 0
		for _, rt := range serverRoutes(api.Operations) {
			if rt.unrouted != "" {
				t.Errorf("%s: %s %s %s is not routed: %s", name, rt.op.ID, rt.op.Method, rt.op.Path, rt.unrouted)
				continue
			}
			routed++
		}
		t.Logf("%s: %d of %d operations routed", name, routed, len(api.Operations))
		// The operations routed now have serve methods: they must compile.
		out, err := Generate(api, Config{Package: "api", Server: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := typeCheckFiles(t, out.Files); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestServerPathIndexes: a path parameter is read by its place among the
// template's parameters, left to right, whole segment or not.
func TestServerPathIndexes(t *testing.T) {
	for path, want := range map[string]map[string]int{
		"/orders/{order_id}":                   {"order_id": 0},
		"/files/{name}.{ext}":                  {"name": 0, "ext": 1},
		"/A/{AccountSid}/Addresses/{Sid}.json": {"AccountSid": 0, "Sid": 1},
		"/v1/{id}:cancel":                      {"id": 0},
		"/a/{x}/b/{y-z}?beta=true":             {"x": 0, "y-z": 1},
		"/sp ace/{v}":                          {"v": 0},
	} {
		rt := serverRoutes([]*ir.Operation{{ID: "op", Method: "GET", Path: path}})[0]
		if rt.unrouted != "" || len(rt.params) != len(want) {
			t.Errorf("%s: params %v (%s), want %v", path, rt.params, rt.unrouted, want)
			continue
		}
		for name, i := range want {
			if got, ok := rt.params[name]; !ok || got != i {
				t.Errorf("%s: %s at %d, want %d", path, name, got, i)
			}
		}
	}
}

// TestServerRefusesDuplicateTemplates: overlapping templates are routed;
// a template another operation has with the same method, up to parameter
// names, and one that cannot be split, are left out, and the Handler's doc
// says why and which operation has the route.
func TestServerRefusesDuplicateTemplates(t *testing.T) {
	ops := []*ir.Operation{
		{ID: "a", Method: "GET", Path: "/a/{x}/c"},
		{ID: "b", Method: "GET", Path: "/a/b/{y}"},
		{ID: "c", Method: "GET", Path: "/a/{z}/c"},
		{ID: "d", Method: "POST", Path: "/a/b/{y}"},
		{ID: "e", Method: "GET", Path: "/e/{x}{y}"},
	}
	var got []string
	for _, rt := range serverRoutes(ops) {
		got = append(got, rt.unrouted)
	}
	if got[0] != "" || got[1] != "" || got[3] != "" || !strings.Contains(got[2], `operation "a"`) || got[4] == "" {
		t.Errorf("unrouted = %q, want the 3rd (naming a) and the 5th refused", got)
	}
}

// TestServerRoutesTemplateQueries: the same path with and without a query
// in its template ("/responses?beta=true") are two routes; the same query
// pairs in another order are one.
func TestServerRoutesTemplateQueries(t *testing.T) {
	ops := []*ir.Operation{
		{ID: "a", Method: "POST", Path: "/responses"},
		{ID: "b", Method: "POST", Path: "/responses", Query: "beta=true"},
		{ID: "c", Method: "POST", Path: "/responses", Query: "x=1&beta=true"},
		{ID: "d", Method: "POST", Path: "/responses", Query: "beta=true&x=1"},
	}
	var got []string
	for _, rt := range serverRoutes(ops) {
		got = append(got, rt.unrouted)
	}
	if got[0] != "" || got[1] != "" || got[2] != "" || !strings.Contains(got[3], `operation "c"`) {
		t.Errorf("unrouted = %q, want only the 4th refused", got)
	}
}

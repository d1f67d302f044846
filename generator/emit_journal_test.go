package generator

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	specparser "github.com/idemgen/idemgen/parser"
)

// TestJournalFileAndKeyTTL: a client with keyed or unsafe operations gets
// ResendIntent mapping each of their ids to its contract, and a keyed
// operation's declared key TTL is in its contract; the files type-check.
func TestJournalFileAndKeyTTL(t *testing.T) {
	api := fixture()
	for _, op := range api.Operations {
		if op.Retry.Safety == ir.Keyed {
			op.Retry.KeyTTL = 48 * time.Hour
		}
	}
	out, err := Generate(api, Config{Package: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	var all, journal string
	for _, f := range out.Files {
		all += blanks.ReplaceAllString(string(f.Content), " ")
		if f.Name == "journal_gen.go" {
			journal = string(f.Content)
		}
	}
	if !strings.Contains(all, "KeyTTL: 48 * time.Hour") {
		t.Error("the keyed contract lacks KeyTTL: 48 * time.Hour")
	}
	if !strings.Contains(journal, "func (c *Client) ResendIntent(ctx context.Context, e *idemrt.JournalEntry) (*http.Response, error)") ||
		!strings.Contains(journal, "c.runner.Resend(ctx, op, server, e)") {
		t.Errorf("journal_gen.go:\n%s", journal)
	}
	for _, op := range api.Operations {
		if has := strings.Contains(journal, `case "`+op.ID+`":`); has != (op.Retry.Safety != ir.Idempotent) {
			t.Errorf("operation %s (%v): case present %v", op.ID, op.Retry.Safety, has)
		}
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
}

// TestOperationsNamedLikeClientMethods: operations named resendIntent,
// lookupIntent and withServerURL (testdata/specs/caseids.yaml) get methods
// of their own, numbered like any other collision, and the client keeps
// ResendIntent (journal_gen.go, with a case for each journaled operation's
// identity: createThing and CreateThing by their bindings), LookupIntent
// and WithServerURL; an operation "intent" gets no
// Lookup method named LookupIntent. Before, journal_gen.go was left out
// without a word and the package did not compile.
func TestOperationsNamedLikeClientMethods(t *testing.T) {
	spec := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "caseids.yaml")
	api, diags, err := specparser.Load(spec, specparser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	out, err := Generate(api, Config{Package: "caseids"})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range out.Files {
		files[f.Name] = blanks.ReplaceAllString(string(f.Content), " ")
	}
	all := strings.Join(slices.Collect(maps.Values(files)), "\n")
	for _, want := range []string{
		"func (c *Client) ResendIntent2(ctx context.Context",
		"func (c *Client) LookupIntent2(ctx context.Context",
		"func (c *Client) WithServerURL2(ctx context.Context",
		"func (c *Client) ResendIntent(ctx context.Context, e *idemrt.JournalEntry) (*http.Response, error)",
		"func (c *Client) LookupIntent(ctx context.Context, operation, key string) (idemrt.LookupResult, error)",
		"func (c *Client) WithServerURL(declared, serverURL string) (*Client, error)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in the package", want)
		}
	}
	if strings.Count(all, "func (c *Client) LookupIntent(") != 1 {
		t.Error("LookupIntent is declared more than once")
	}
	journal := files["journal_gen.go"]
	for _, id := range []string{"POST /things", "POST /things/import", "resendIntent", "intent", "withServerURL"} {
		if !strings.Contains(journal, `case "`+id+`":`) {
			t.Errorf("journal_gen.go has no case for %q:\n%s", id, journal)
		}
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
}

// TestGenerateRefusesSharedIdentities: an IR the parser did not build, with
// two operations of one identity or an operation whose method would be
// ResendIntent, is refused with a reason naming the operation, rather than
// generated into a package that does not compile or silently lacks the
// reconciler's method.
func TestGenerateRefusesSharedIdentities(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(api *ir.API)
		want   string
	}{
		{"shared identity", func(api *ir.API) { api.Operations[1].ID = api.Operations[0].ID }, "identity"},
		{"client method", func(api *ir.API) { api.Operations[0].GoName = "ResendIntent" }, "ResendIntent"},
	} {
		api := fixture()
		tc.mutate(api)
		_, err := Generate(api, Config{Package: "orders"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), api.Operations[0].ID) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

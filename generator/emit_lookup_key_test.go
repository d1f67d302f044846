package generator

import (
	"strings"
	"testing"

	idemparser "github.com/idemgen/idemgen/parser"
)

// TestLookupKeyNamesTheIntent: an unsafe create whose body has a member
// named like its lookup's key parameter makes that member the call's key,
// and LookupIntent runs its lookup; without such a member the call keeps a
// fresh key, which its lookup cannot find, so LookupIntent leaves the
// operation out (a reconciler then asks a person instead of reporting a
// false "not executed"). Lookup<Op> stays in both cases.
func TestLookupKeyNamesTheIntent(t *testing.T) {
	for _, tc := range []struct {
		member string
		named  bool
	}{{"reference", true}, {"other", false}} {
		api, diags, err := idemparser.Load("../testdata/specs/lookup.yaml", idemparser.Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%v %v", err, diags.Errors())
		}
		for _, op := range api.Operations {
			if op.ID == "createRefund" {
				key := *op.Lookup.Key
				key.Name = tc.member
				op.Lookup.Key = &key
			}
		}
		out, err := Generate(api, Config{Package: "lookup"})
		if err != nil {
			t.Fatal(err)
		}
		var all string
		for _, f := range out.Files {
			all += string(f.Content)
		}
		if has := strings.Contains(all, "b.Key(body.Reference)"); has != tc.named {
			t.Errorf("member %q: the call keyed by body.Reference: %v, want %v", tc.member, has, tc.named)
		}
		if has := strings.Contains(all, `case "createRefund":`+"\n\t\treturn c.lookupCreateRefund"); has != tc.named {
			t.Errorf("member %q: LookupIntent runs createRefund's lookup: %v, want %v", tc.member, has, tc.named)
		}
		if !strings.Contains(all, "func (c *Client) LookupCreateRefund(") || !strings.Contains(all, `case "createPayment":`) {
			t.Errorf("member %q: LookupCreateRefund or createPayment's LookupIntent case is missing", tc.member)
		}
		if err := typeCheckFiles(t, out.Files); err != nil {
			t.Fatal(err)
		}
	}
}

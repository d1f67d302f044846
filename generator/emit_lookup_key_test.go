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
// false "not executed"). Lookup<Op> stays in both cases, and its comment
// says when the calls carry a fresh key.
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
				if !tc.named {
					op.Lookup.Member = ""
				}
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
		if has := strings.Contains(all, `b.LookupKey("reference", body.Reference)`); has != tc.named {
			t.Errorf("member %q: the call keyed by body.Reference: %v, want %v", tc.member, has, tc.named)
		}
		if has := strings.Contains(all, `case "createRefund":`+"\n\t\treturn c.lookupCreateRefund"); has != tc.named {
			t.Errorf("member %q: LookupIntent runs createRefund's lookup: %v, want %v", tc.member, has, tc.named)
		}
		if has := strings.Contains(all, "CreateRefund's calls carry a fresh key, not this other"); has == tc.named {
			t.Errorf("member %q: LookupCreateRefund's comment says the calls carry a fresh key: %v, want %v", tc.member, has, !tc.named)
		}
		if !strings.Contains(all, "func (c *Client) LookupCreateRefund(") || !strings.Contains(all, `case "createPayment":`) {
			t.Errorf("member %q: LookupCreateRefund or createPayment's LookupIntent case is missing", tc.member)
		}
		if err := typeCheckFiles(t, out.Files); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLookupKeyOptionalReference: an unsafe create whose reference member
// is optional keys the call by it when it is set, and refuses the call
// (an empty key, idemrt.ErrEmptyLookupKey) when it is nil, before anything
// is sent; the code type-checks.
func TestLookupKeyOptionalReference(t *testing.T) {
	api, diags, err := idemparser.Load("../testdata/specs/lookup.yaml", idemparser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("%v %v", err, diags.Errors())
	}
	for _, op := range api.Operations {
		if op.ID != "createRefund" {
			continue
		}
		for _, p := range op.Body.Content[0].Schema.Deref().Properties {
			if p.Name == "reference" {
				p.Required = false
			}
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
	want := "if body.Reference != nil {\n\t\tb.LookupKey(\"reference\", *body.Reference)\n\t} else {\n\t\tb.LookupKey(\"reference\", \"\")\n\t}"
	if !strings.Contains(all, want) {
		t.Errorf("CreateRefund does not key the call by its optional reference and refuse a nil one:\n%s", all)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
}

package generator

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	idemparser "github.com/idemgen/idemgen/parser"
)

// TestStripeCommentsHaveNoHTML generates the Stripe client (whose
// descriptions are HTML) in memory and checks that no comment of it holds
// an HTML tag: every <p>, <a href>, <code> and <ul><li> became doc comment
// syntax. A placeholder such as "Authorization: Basic <api_key>" in text
// that is not HTML is the author's prose, not a tag, and is allowed: it
// names no HTML element and nothing closes it. Skipped under -short.
func TestStripeCommentsHaveNoHTML(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates the Stripe client")
	api, diags, err := idemparser.Load(filepath.Join(dir, "stripe-spec3-2023-09.yaml"), idemparser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags.Errors())
	}
	out, err := Generate(api, Config{Package: "stripe"})
	if err != nil {
		t.Fatal(err)
	}
	tag := regexp.MustCompile(`<[a-zA-Z/]`)
	// placeholder is "<api_key>", "<base64 hash of `+"`api_key:`"+`>": a
	// lower-case word that is no HTML element, with no end tag.
	placeholder := regexp.MustCompile(`<[a-z][a-z0-9_]*(?:[ :][^<>]*)?>`)
	for _, m := range placeholder.FindAllString(strings.Join(allComments(t, out.Files), "\n"), -1) {
		if htmlTag.MatchString(m) {
			t.Errorf("HTML tag %s left in a comment", m)
		}
	}
	found := 0
	for _, c := range allComments(t, out.Files) {
		if tag.MatchString(placeholder.ReplaceAllString(c, "")) {
			if found++; found <= 10 {
				t.Errorf("%s", c)
			}
		}
	}
	if found > 10 {
		t.Errorf("... %d comment lines with HTML tags in all", found)
	}
}

// allComments returns every comment line of the generated Go files,
// prefixed with its position.
func allComments(t *testing.T, files []File) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f.Name, f.Content, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, cg := range file.Comments {
			for _, c := range cg.List {
				out = append(out, fset.Position(c.Pos()).String()+": "+c.Text)
			}
		}
	}
	return out
}

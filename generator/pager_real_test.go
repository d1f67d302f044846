package generator

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// TestRealWorldIterators counts the iterators emitted for the paginated
// operations of GitHub's and Stripe's documents (every one the parser
// infers, docs/extensions.md), and lists those left without one.
func TestRealWorldIterators(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates the GitHub and Stripe clients")
	iterRE := regexp.MustCompile(`(?m)^func \(c \*Client\) \w+Iter\(`)
	skipRE := regexp.MustCompile(`(?m)^// \w+ has no iterator methods: .*$`)
	for _, tc := range []struct {
		file  string
		iters int
	}{{"github-api.json", 185}, {"stripe-spec3-2023-09.yaml", 100}} {
		api, diags, err := parser.Load(filepath.Join(dir, tc.file), parser.Options{})
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: %v %v", tc.file, err, diags.Errors())
		}
		out, err := Generate(api, Config{Package: "api"})
		if err != nil {
			t.Fatal(err)
		}
		iters, skipped := 0, []string{}
		for _, f := range out.Files {
			iters += len(iterRE.FindAll(f.Content, -1))
			for _, m := range skipRE.FindAll(f.Content, -1) {
				skipped = append(skipped, string(m))
			}
		}
		if iters != tc.iters || len(skipped) > 0 {
			t.Errorf("%s: %d Iter methods, want %d; without iterators:\n%s", tc.file, iters, tc.iters, strings.Join(skipped, "\n"))
		}
	}
}

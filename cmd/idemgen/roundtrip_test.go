package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestAnnotateThenLint: after `annotate -w`, lint finds no unannotated
// operation in the project's test specs and no new error, so annotate's
// output is a baseline the parser accepts.
func TestAnnotateThenLint(t *testing.T) {
	specs := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs")
	for _, name := range []string{"petstore.yaml", "orders.yaml", "swagger2.yaml", "openapi31.yaml", "composition.yaml"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(specs, name))
			if err != nil {
				t.Skip(err)
			}
			spec := filepath.Join(t.TempDir(), name)
			writeFile(t, spec, string(src))
			if r := runFake(t, &fake{}, "annotate", "-w", spec); r.code != exitOK {
				t.Fatalf("annotate: exit %d: %s", r.code, r.stderr)
			}
			var out, errOut bytes.Buffer
			code := run([]string{"lint", "--format", "json", spec}, &out, &errOut)
			var findings []lintFinding
			if err := json.Unmarshal(out.Bytes(), &findings); err != nil {
				t.Fatalf("lint output: %v\n%s", err, out.String())
			}
			for _, f := range findings {
				if f.Severity == "error" || strings.HasPrefix(f.Rule, "unannotated") {
					t.Errorf("after annotate: %s %s: %s", f.Severity, f.Rule, f.Message)
				}
			}
			if code != exitOK {
				t.Errorf("lint exit %d: %s", code, errOut.String())
			}
		})
	}
}

// TestHostileSpecs: malformed documents end in an exit status and a
// message, never a crash, for every command.
func TestHostileSpecs(t *testing.T) {
	docs := map[string]string{
		"empty.yaml":     "",
		"binary.yaml":    "\x00\xff\xfe\x01garbage",
		"scalar.yaml":    "42\n",
		"list.json":      "[1, 2, 3]",
		"nopaths.yaml":   "openapi: 3.0.3\ninfo: {title: x, version: '1'}\n",
		"badpaths.yaml":  "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths: [1, 2]\n",
		"deep.json":      strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
		"selfref.yaml":   "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A: {$ref: '#/components/schemas/A'}\n",
		"dangling.yaml":  "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [{$ref: '#/nowhere'}]\n      responses: {'200': {description: ok}}\n",
		"aliases.yaml":   "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\npaths: {/x: {get: *c}}\n",
		"hugeint.yaml":   "openapi: 3.0.3\ninfo: {title: x, version: '1'}\nx-retryable-status: [99999999999999999999999]\npaths: {}\n",
		"wrongtype.json": `{"openapi": 3, "info": [], "paths": {"/a": {"get": "nope", "post": {"x-idempotent": {"key": []}}}}}`,
	}
	dir := t.TempDir()
	for name, content := range docs {
		writeFile(t, filepath.Join(dir, name), content)
	}
	for name := range docs {
		spec := filepath.Join(dir, name)
		for _, args := range [][]string{
			{"lint", spec},
			{"annotate", spec},
			{"generate", spec, "-p", "x", "-o", filepath.Join(dir, "out")},
		} {
			var out, errOut bytes.Buffer
			code := run(args, &out, &errOut)
			if code != exitOK && code != exitProblem {
				t.Errorf("%s %s: exit %d", args[0], name, code)
			}
			if strings.Contains(out.String()+errOut.String(), "internal error") {
				t.Errorf("%s %s: a panic was recovered:\n%s", args[0], name, errOut.String())
			}
		}
	}
}

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestLintLookup: lint reports every x-lookup finding, located at the
// operation and the member, with its rule; a clean lookup spec passes
// --strict; generate refuses what lint calls an error and writes nothing.
func TestLintLookup(t *testing.T) {
	specs := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs")
	var out, errOut bytes.Buffer
	if code := run([]string{"lint", "--strict", filepath.Join(specs, "lookup.yaml")}, &out, &errOut); code != exitOK {
		t.Errorf("lookup.yaml: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	for spec, want := range map[string][]string{
		"lookup-type.yaml": {
			`error: {spec}:10:17: notAnObject (/paths/~1a/post/x-lookup): x-lookup must be an object`,
			`error: {spec}:45:17: getThing (/paths/~1things/get/x-lookup): x-lookup is for a keyed or unsafe operation`,
			"[lookup-placement]",
		},
		"lookup-operation.yaml": {
			`error: {spec}:10:31: createOrder (/paths/~1orders/post/x-lookup/operationId): operationId "findOrder" names no operation of the document`,
			`error: {spec}:29:31: unsafeLookup (/paths/~1orders~1unsafe/post/x-lookup/operationId): createOrder is unsafe; a lookup must be safe`,
			`error: {spec}:47:65: missingParam (/paths/~1orders~1param/post/x-lookup/key/name): listOrders has no path parameter "reference"`,
			`error: {spec}:65:87: badFound (/paths/~1orders~1found/post/x-lookup/found): found "/items/0" is not in the answer of searchOrders`,
			"[lookup-params]",
		},
	} {
		path := filepath.Join(specs, "bad", spec)
		out.Reset()
		errOut.Reset()
		code := run([]string{"lint", path}, &out, &errOut)
		for _, w := range want {
			if w = strings.ReplaceAll(w, "{spec}", path); !strings.Contains(out.String(), w) {
				t.Errorf("%s: lint output lacks %q:\n%s", spec, w, out.String())
			}
		}
		dir := t.TempDir()
		genCode := run([]string{"generate", path, "-p", "x", "-o", filepath.Join(dir, "x")}, &bytes.Buffer{}, &bytes.Buffer{})
		if code != exitProblem || genCode != exitProblem {
			t.Errorf("%s: lint exit %d, generate exit %d; want %d for both", spec, code, genCode, exitProblem)
		}
		if entries, _ := filepath.Glob(filepath.Join(dir, "x", "*")); len(entries) > 0 {
			t.Errorf("%s: generate wrote %v", spec, entries)
		}
	}
}

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

// TestLintLookupMatch: lint warns, located at the operation and the JSON
// pointer, on an x-lookup whose found value cannot be checked to carry the
// call's key (lookup-match) and on an unsafe operation whose calls never
// carry the key its lookup takes (lookup-call-key); the warnings pass
// without --strict and fail it; generate writes the client and counts them.
func TestLintLookupMatch(t *testing.T) {
	path := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "lint", "lookup-match.yaml")
	var out, errOut bytes.Buffer
	if code := run([]string{"lint", path}, &out, &errOut); code != exitOK {
		t.Errorf("lint: exit %d, want %d for warnings:\n%s%s", code, exitOK, out.String(), errOut.String())
	}
	for _, w := range []string{
		`warning: {spec}:11:65: createRefund (/paths/~1refunds/post/x-lookup/key/name): createRefund's calls carry a fresh key, never their client_reference`,
		`warning: {spec}:11:17: createRefund (/paths/~1refunds/post/x-lookup): nothing checks that what getRefund finds is this call's`,
		`warning: {spec}:41:84: missingMatch (/paths/~1refunds~1missing/post/x-lookup/match): match "/ref" is not in the value getRefund finds`,
		"[lookup-call-key]", "[lookup-match]",
	} {
		if w = strings.ReplaceAll(w, "{spec}", path); !strings.Contains(out.String(), w) {
			t.Errorf("lint output lacks %q:\n%s", w, out.String())
		}
	}
	if strings.Contains(out.String(), "checkedRefund") || strings.Contains(out.String(), "nestedMatch") {
		t.Errorf("a lookup whose match holds is reported:\n%s", out.String())
	}
	if code := run([]string{"lint", "--strict", path}, &bytes.Buffer{}, &bytes.Buffer{}); code != exitProblem {
		t.Errorf("lint --strict: exit %d, want %d", code, exitProblem)
	}
	dir := t.TempDir()
	errOut.Reset()
	if code := run([]string{"generate", path, "-p", "x", "-o", filepath.Join(dir, "x")}, &bytes.Buffer{}, &errOut); code != exitOK ||
		!strings.Contains(errOut.String(), "7 warnings") {
		t.Errorf("generate: exit %d, stderr %q; want the client and 7 warnings counted", code, errOut.String())
	}
}

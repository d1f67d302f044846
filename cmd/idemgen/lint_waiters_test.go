package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestLintWaiters: lint reports every x-waiters finding, located, with its
// rule; a clean waiter spec passes --strict; generate refuses what lint
// calls an error and writes nothing.
func TestLintWaiters(t *testing.T) {
	specs := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs")
	var out, errOut bytes.Buffer
	if code := run([]string{"lint", "--strict", filepath.Join(specs, "waiters.yaml")}, &out, &errOut); code != exitOK {
		t.Errorf("waiters.yaml: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	for spec, want := range map[string][]string{
		"waiter-unsafe.yaml": {
			"error: {spec}:9:18: createPayment (/paths/~1payments/post/x-waiters): x-waiters needs an idempotent operation",
			"[waiter-unsafe]",
		},
		"waiter-field.yaml": {
			`error: {spec}:12:42: getPayment (/paths/~1payments~1{id}/get/x-waiters/0/until/field): field "state" (/state) is not in the result of getPayment`,
		},
		"waiter-duplicate.yaml": {
			`warning: {spec}:12:63: getPayment (/paths/~1payments~1{id}/get/x-waiters/0/until/in/1): "finished" is not a value of the field's enum`,
			`error: {spec}:27:19: getRefund (/paths/~1refunds~1{id}/get/x-waiters/0): waiter "done" has the name of the waiter at line 12 (WaitDone)`,
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

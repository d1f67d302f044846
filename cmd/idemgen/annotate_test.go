package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const unannotated = `openapi: 3.0.3
paths:
  /orders:
    post:   # create
      responses: {}
`

func TestAnnotatePrintsDiff(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "orders.yaml")
	writeFile(t, spec, unannotated)
	t.Chdir(dir)
	r := runFake(t, &fake{}, "annotate", "orders.yaml")
	want := "--- a/orders.yaml\n+++ b/orders.yaml\n@@ -2,4 +2,5 @@\n paths:\n   /orders:\n     post:   # create\n+      x-idempotent: false\n       responses: {}\n"
	if r.code != exitOK || r.stdout != want || r.stderr != "" {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
	if b, _ := os.ReadFile(spec); string(b) != unannotated {
		t.Error("annotate without -w changed the file")
	}
}

func TestAnnotateWrite(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "orders.yaml")
	writeFile(t, spec, unannotated)
	if err := os.Chmod(spec, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runFake(t, &fake{}, "annotate", "-w", spec)
	if r.code != exitOK || r.stdout != "" || r.stderr != spec+": added x-idempotent to 1 operation\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(spec)
	if want := strings.Replace(unannotated, "# create\n", "# create\n      x-idempotent: false\n", 1); string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	if fi, _ := os.Stat(spec); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode())
	}
	// A second run has nothing to add and says nothing.
	if r := runFake(t, &fake{}, "annotate", "-w", spec); r.code != exitOK || r.stdout != "" || r.stderr != "" {
		t.Errorf("second run: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	assertNoStaging(t, dir)
}

// TestAnnotateProblems: a bad file is reported and the others still run.
func TestAnnotateProblems(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	writeFile(t, good, unannotated)
	writeFile(t, bad, "paths: [\n")
	shared := filepath.Join(dir, "shared.yaml")
	writeFile(t, shared, "paths:\n  /a:\n    get: &g {responses: {}}\n    head: *g\n")
	r := runFake(t, &fake{}, "annotate", bad, filepath.Join(dir, "missing.yaml"), shared, good)
	if r.code != exitProblem {
		t.Errorf("exit %d, want 1", r.code)
	}
	for _, s := range []string{
		"idemgen: " + bad + ": parsing YAML",
		"idemgen: " + filepath.Join(dir, "missing.yaml") + ": open",
		"note: " + shared + ":3:10: (/paths/~1a/get): operation is a shared YAML anchor or alias; annotate it by hand",
	} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "+      x-idempotent: false") {
		t.Errorf("the good file was not annotated:\n%s", r.stdout)
	}
}

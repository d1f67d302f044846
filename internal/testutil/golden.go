// Package testutil holds helpers shared by every test package of the module.
//
// It defines the -update flag once: `go test ./... -update` passes the flag to
// every test binary, and a binary that does not define it fails, so every test
// package imports this one (directly, or through a blank import).
package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update reports whether golden files should be rewritten instead of compared.
var Update = flag.Bool("update", false, "rewrite golden files instead of comparing against them")

// Golden compares got with the file at path, or rewrites the file when the
// -update flag is set. The failure message shows both sides.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run `go test -update` to accept):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// SharedSpecsDir returns the folder of real-world specs beside the checkout
// (<module root>/../shared/specs, or $IDEMGEN_SHARED_SPECS when set, for a
// checkout elsewhere such as a git worktree), or "" when it does not exist.
func SharedSpecsDir(t testing.TB) string {
	t.Helper()
	p := filepath.Join(ModuleRoot(t), "..", "shared", "specs")
	if env := os.Getenv("IDEMGEN_SHARED_SPECS"); env != "" {
		p = env
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return p
	}
	return ""
}

// ModuleRoot returns the directory holding the module's go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

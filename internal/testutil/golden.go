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
	"strings"
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
// (<RepoRoot>/../shared/specs, or $IDEMGEN_SHARED_SPECS when set), or, in a
// git worktree, beside the main checkout the worktree belongs to; "" when
// none exists.
func SharedSpecsDir(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	candidates := []string{filepath.Join(root, "..", "shared", "specs")}
	if env := os.Getenv("IDEMGEN_SHARED_SPECS"); env != "" {
		candidates = []string{env}
	} else if main := worktreeMain(root); main != "" {
		candidates = append(candidates, filepath.Join(main, "..", "shared", "specs"))
	}
	for _, p := range candidates {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
	}
	return ""
}

// worktreeMain returns the main checkout of the git worktree at root, or ""
// when root is not a worktree (its .git is then a folder, not a file).
func worktreeMain(root string) string {
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return ""
	}
	// <main>/.git/worktrees/<name> -> <main>
	return filepath.Dir(filepath.Dir(filepath.Dir(gitdir)))
}

// RealSpecs returns SharedSpecsDir for a test of the real-world documents.
// With slow set, the test is skipped under -short (slow says why). A missing
// folder skips the test, except under CI=true: CI always lays shared/ beside
// the checkout, so there a missing folder fails instead of passing silently.
func RealSpecs(t testing.TB, slow string) string {
	t.Helper()
	if slow != "" && testing.Short() {
		t.Skip(slow)
	}
	dir := SharedSpecsDir(t)
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("../shared/specs not found beside the checkout (set IDEMGEN_SHARED_SPECS)")
		}
		t.Skip("../shared/specs not found beside the checkout (set IDEMGEN_SHARED_SPECS)")
	}
	return dir
}

// RepoRoot returns the checkout's root: the nearest directory above the
// test's module that holds go.work (the modules nested in the repository,
// server/internal/sdkjudge say, share it), else the module's root.
func RepoRoot(t testing.TB) string {
	t.Helper()
	root := ModuleRoot(t)
	for dir := root; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return root
		}
		dir = parent
	}
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

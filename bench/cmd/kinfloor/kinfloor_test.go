package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// repoSpec is a spec of the main module's testdata (testutil.ModuleRoot is
// the bench module here; the repository root is its parent).
func repoSpec(t *testing.T, name string) string {
	return filepath.Join(testutil.ModuleRoot(t), "..", "testdata", "specs", name)
}

func TestLoadsAndValidatesSpec(t *testing.T) {
	spec := repoSpec(t, "petstore.yaml")
	for _, validate := range []bool{true, false} {
		if err := run(spec, validate); err != nil {
			t.Errorf("run(petstore, validate=%v) = %v", validate, err)
		}
	}
}

// TestInvalidDocumentStillTimed: strict validation failures are printed,
// not fatal, because the floor measures the cost of validating.
func TestInvalidDocumentStillTimed(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "bad.yaml")
	// An operation without responses breaks Validate but loads fine.
	doc := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get: {}\n"
	if err := os.WriteFile(spec, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(spec, true); err != nil {
		t.Fatalf("run(invalid) = %v, want nil", err)
	}
}

func TestUnloadableDocumentFails(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "missing.yaml")
	err := run(spec, true)
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("run(missing) = %v, want an error naming the file", err)
	}
}

func TestFirstLine(t *testing.T) {
	if got := firstLine("a\nb\nc"); got != "a" {
		t.Errorf("firstLine = %q, want a", got)
	}
	if got := firstLine("single"); got != "single" {
		t.Errorf("firstLine = %q, want single", got)
	}
}

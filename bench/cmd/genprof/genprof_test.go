package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestRunsPipelineAndWritesProfile runs idemgen's load and generate phases
// on the repository's orders spec and checks that a CPU profile is written.
func TestRunsPipelineAndWritesProfile(t *testing.T) {
	spec := filepath.Join(testutil.ModuleRoot(t), "..", "testdata", "specs", "orders.yaml")
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	if err := run(spec, prof); err != nil {
		t.Fatalf("run(orders.yaml) = %v", err)
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Fatalf("profile not written: %v", err)
	}
}

func TestMissingSpecFails(t *testing.T) {
	if err := run(filepath.Join(t.TempDir(), "none.yaml"), ""); err == nil {
		t.Fatal("run(missing spec) = nil, want an error")
	}
}

package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuntimeImports enforces STYLE.md's import table on the runtime's
// packages. The runtime is a module of its own (runtime/go.mod), which cannot
// import this internal package, so its table is checked from here.
func TestRuntimeImports(t *testing.T) {
	root := ModuleRoot(t)
	for dir, allowed := range map[string][]string{
		"runtime":                 EngineImports,
		"runtime/wire":            WireImports,
		"runtime/internal/shared": SharedImports,
	} {
		t.Run(dir, func(t *testing.T) { CheckImportsIn(t, filepath.Join(root, dir), allowed...) })
	}
}

// TestRuntimeModuleRequiresUUIDOnly: a module importing a generated SDK
// gets the runtime's requirements in its build list, so the runtime's go.mod
// requires google/uuid and nothing else.
func TestRuntimeModuleRequiresUUIDOnly(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(ModuleRoot(t), "runtime", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs []string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			reqs = append(reqs, strings.Fields(line)[0])
		case strings.HasPrefix(line, "require "):
			reqs = append(reqs, strings.Fields(line)[1])
		case strings.HasPrefix(line, "replace "):
			t.Errorf("runtime/go.mod has a replace directive (%s); consumers would not see it", line)
		}
	}
	if len(reqs) != 1 || reqs[0] != "github.com/google/uuid" {
		t.Errorf("runtime/go.mod requires %v, want github.com/google/uuid only", reqs)
	}
}

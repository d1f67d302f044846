package testutil

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRuntimeImports enforces STYLE.md's import table on the runtime's
// packages. The runtime is a module of its own (runtime/go.mod), which cannot
// import this internal package, so its table is checked from here.
func TestRuntimeImports(t *testing.T) {
	root := ModuleRoot(t)
	for dir, allowed := range map[string][]string{
		"runtime":                    EngineImports,
		"runtime/wire":               WireImports,
		"runtime/internal/shared":    SharedImports,
		"runtime/internal/jsoncodec": JSONCodecImports,
		"runtime/oauth":              OAuthImports,
		"runtime/problem":            ProblemImports,
	} {
		t.Run(dir, func(t *testing.T) { CheckImportsIn(t, filepath.Join(root, dir), allowed...) })
	}
	// The library is named in one file, so that replacing it (with
	// encoding/json/v2, say) is one file's change.
	files, _ := filepath.Glob(filepath.Join(root, "runtime", "internal", "jsoncodec", "*.go"))
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || filepath.Base(name) == "fast.go" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if strings.Contains(imp.Path.Value, JSONLibrary) {
				t.Errorf("%s imports %s, which only fast.go may name", name, imp.Path.Value)
			}
		}
	}
}

// TestRuntimeModuleRequirements: a module importing a generated SDK gets
// the runtime's requirements in its build list, so the runtime's go.mod
// requires google/uuid, its one JSON library and golang.org/x/oauth2 (for
// runtime/oauth alone), and nothing else.
func TestRuntimeModuleRequirements(t *testing.T) {
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
	slices.Sort(reqs)
	if want := []string{JSONLibrary, "github.com/google/uuid", OAuthLibrary}; !slices.Equal(reqs, want) {
		t.Errorf("runtime/go.mod requires %v, want %v", reqs, want)
	}
}

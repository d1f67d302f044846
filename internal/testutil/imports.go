package testutil

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The rows of STYLE.md's import table for the packages generated code
// imports, beyond the standard library. The engine (runtime, imported as
// idemrt) and the codec (runtime/wire) never import each other: what both
// name (the prepared Request, the errors users match) lives in
// runtime/internal/shared, which imports neither. Both reach JSON through
// runtime/internal/jsoncodec, the one package that names the runtime's JSON
// library (docs/runtime.md).
var (
	// EngineImports is what package runtime may import.
	EngineImports = []string{"github.com/google/uuid", "github.com/idemgen/idemgen/runtime/internal/shared", JSONCodec, Problem}
	// Problem is the problem+json vocabulary (type URIs, the writer, Is),
	// which the engine reads answers with and the ledger, the server and
	// the mock write them with.
	Problem = "github.com/idemgen/idemgen/runtime/problem"
	// ProblemImports is what runtime/problem may import: the standard
	// library only, so every module can take it.
	ProblemImports = []string{}
	// WireImports is what package runtime/wire may import.
	WireImports = []string{"github.com/idemgen/idemgen/runtime/internal/shared", JSONCodec}
	// SharedImports is what package runtime/internal/shared may import:
	// the standard library only.
	SharedImports = []string{}
	// JSONCodecImports is what runtime/internal/jsoncodec may import: its
	// JSON library (in fast.go alone; TestRuntimeImports checks that too)
	// and the shared errors (ErrTooDeep, which the engine and the codec name).
	JSONCodecImports = []string{JSONLibrary, "github.com/idemgen/idemgen/runtime/internal/shared"}
	// OAuthImports is what runtime/oauth may import: the engine and
	// golang.org/x/oauth2 (the token requests). Only clients of documents
	// with an OAuth2 client credentials flow import it, so no other SDK
	// builds x/oauth2.
	OAuthImports = []string{"github.com/idemgen/idemgen/runtime", OAuthLibrary, OAuthLibrary + "/clientcredentials"}
)

// OAuthLibrary is the runtime module's requirement for runtime/oauth.
const OAuthLibrary = "golang.org/x/oauth2"

// JSONCodec is the runtime's JSON package; JSONLibrary the library behind it,
// the runtime module's one requirement besides google/uuid.
const (
	JSONCodec   = "github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	JSONLibrary = "github.com/goccy/go-json"
)

// CheckImports enforces a row of STYLE.md's import table on the package in
// the test's working directory: its non-test files may import the standard
// library and the allowed paths only. An allowed path ending in "/" admits
// every package below it.
func CheckImports(t testing.TB, allowed ...string) {
	t.Helper()
	CheckImportsIn(t, ".", allowed...)
}

// CheckImportsIn is CheckImports on the package in dir. The runtime is a
// module of its own, so its import table is checked from this module
// (runtime_imports_test.go) rather than by tests inside it.
func CheckImportsIn(t testing.TB, dir string, allowed ...string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !isStdlib(path) && !importAllowed(path, allowed) {
				t.Errorf("%s imports %s; allowed beyond the standard library: %v", name, path, allowed)
			}
		}
	}
}

// isStdlib reports whether an import path is the standard library's: its
// first element has no dot.
func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func importAllowed(path string, allowed []string) bool {
	for _, a := range allowed {
		if path == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(path, a)) {
			return true
		}
	}
	return false
}

// LocalReplaces is the go.mod text that points a scratch module at the
// checkout in root: the main module and every module of its own beside it
// (the runtime, the ledger and its stores, the server runtime), since a
// scratch module runs without the repository's go.work.
func LocalReplaces(root string) string {
	out := "replace github.com/idemgen/idemgen => " + root + "\n"
	// The modules of the repository besides the root, which the root's
	// go.mod requires at versions that may not be published.
	for _, dir := range []string{"runtime", "ledger", "ledger/sqlitestore", "ledger/pgstore", "server"} {
		out += "\nreplace github.com/idemgen/idemgen/" + dir + " => " + filepath.Join(root, filepath.FromSlash(dir)) + "\n"
	}
	return out
}

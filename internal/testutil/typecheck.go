package testutil

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// typeChecker holds one importer for the whole test binary: it type-checks
// the module's runtime packages (the engine, runtime/wire and what they
// share) and google/uuid from source on first use, reads the standard
// library from the go command's export data, and caches both, so each later
// check costs only the generated package itself.
var typeChecker struct {
	sync.Mutex
	fset *token.FileSet
	imp  *sourceImporter
}

// sourceImporter type-checks non-standard packages from their source (found
// by go/build from the module root, so the runtime is this checkout's) and
// imports the standard library from export data: type-checking net/http
// from source takes seconds, and far longer in a coverage-instrumented fuzz
// worker.
type sourceImporter struct {
	fset *token.FileSet
	std  types.Importer
	root string
	pkgs map[string]*types.Package
}

func (s *sourceImporter) Import(path string) (*types.Package, error) {
	if p, ok := s.pkgs[path]; ok {
		return p, nil
	}
	if first, _, _ := strings.Cut(path, "/"); !strings.Contains(first, ".") {
		return s.std.Import(path)
	}
	bp, err := build.Default.Import(path, s.root, 0)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(s.fset, filepath.Join(bp.Dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: s}
	pkg, err := conf.Check(path, s.fset, files, nil)
	if err != nil {
		return nil, fmt.Errorf("type-checking %s: %w", path, err)
	}
	s.pkgs[path] = pkg
	return pkg, nil
}

// TypeCheck parses the files of one generated package (name -> content) and
// type-checks them with go/types against the real source of the module's
// runtime packages, as `go build` would. It returns every type error (up to
// 20), sorted, or nil. Safe for concurrent use (checks run one at a time).
func TypeCheck(t testing.TB, files map[string][]byte) error {
	t.Helper()
	typeChecker.Lock()
	defer typeChecker.Unlock()
	if typeChecker.imp == nil {
		fset := token.NewFileSet()
		typeChecker.fset = fset
		typeChecker.imp = &sourceImporter{fset: fset, std: importer.ForCompiler(fset, "gc", nil),
			root: ModuleRoot(t), pkgs: map[string]*types.Package{}}
	}
	return typeCheck(typeChecker.fset, typeChecker.imp, files)
}

// warmImports are what generated code imports.
var warmImports = []string{"context", "encoding/json", "io", "net/http", "net/url", "time", "github.com/idemgen/idemgen/runtime"}

// WarmTypeCheck loads the runtime (and everything below it) into the shared
// importer now. A fuzz target calls it before f.Fuzz: a fuzzing worker
// panics ("deadlocked!") when one input takes over 10 s, and on a loaded
// machine the first import alone can, in every freshly started worker.
func WarmTypeCheck(t testing.TB) {
	t.Helper()
	var src strings.Builder
	src.WriteString("package warm\n\nimport (\n")
	for _, p := range warmImports {
		src.WriteString("\t_ \"" + p + "\"\n")
	}
	src.WriteString(")\n")
	err := TypeCheck(t, map[string][]byte{"warm.go": []byte(src.String())})
	if err != nil {
		t.Fatal(err)
	}
}

// typeCheck is TypeCheck with an explicit file set and importer.
func typeCheck(fset *token.FileSet, imp types.Importer, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		if strings.HasSuffix(name, ".go") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var parsed []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], parser.ParseComments)
		if err != nil {
			return err
		}
		parsed = append(parsed, f)
	}
	if len(parsed) == 0 {
		return errors.New("no Go files to type-check")
	}
	var errs []string
	conf := types.Config{Importer: imp, Error: func(err error) {
		if len(errs) < 20 {
			errs = append(errs, err.Error())
		}
	}}
	_, _ = conf.Check(parsed[0].Name.Name, fset, parsed, nil)
	if len(errs) > 0 {
		return fmt.Errorf("the generated package does not type-check:\n%s", strings.Join(errs, "\n"))
	}
	return nil
}

package testutil

import (
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"sync"
	"testing"
)

// typeChecker holds one source importer for the whole test binary: it
// type-checks the module's runtime package (and the standard library and
// google/uuid below it) from source on first use and caches them, so each
// later check costs only the generated package itself.
var typeChecker struct {
	sync.Mutex
	fset *token.FileSet
	imp  types.ImporterFrom
	root string
}

// sourceImporter resolves every import from the module root, whatever
// directory the checked files pretend to be in.
type sourceImporter struct {
	from types.ImporterFrom
	root string
}

func (s sourceImporter) Import(path string) (*types.Package, error) {
	return s.from.ImportFrom(path, s.root, 0)
}

func (s sourceImporter) ImportFrom(path, _ string, mode types.ImportMode) (*types.Package, error) {
	return s.from.ImportFrom(path, s.root, mode)
}

// TypeCheck parses the files of one generated package (name -> content) and
// type-checks them with go/types against the real source of the module's
// runtime package, as `go build` would. It returns every type error (up to
// 20), sorted, or nil. Safe for concurrent use (checks run one at a time).
func TypeCheck(t testing.TB, files map[string][]byte) error {
	t.Helper()
	typeChecker.Lock()
	defer typeChecker.Unlock()
	if typeChecker.imp == nil {
		typeChecker.fset = token.NewFileSet()
		typeChecker.root = ModuleRoot(t)
		src := importer.ForCompiler(typeChecker.fset, "source", nil).(types.ImporterFrom)
		typeChecker.imp = sourceImporter{from: src, root: typeChecker.root}
	}
	return typeCheck(typeChecker.fset, typeChecker.imp, files)
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

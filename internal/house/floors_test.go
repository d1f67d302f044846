package house

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the import path of the repository's root module; every
// module nested in the repository (runtime, server, ledger, bench...) has
// an import path below it.
const modulePath = "github.com/idemgen/idemgen"

// groundFloor names the top-level folders of helpers: what the parser, the
// generator, annotate, the mock and the rest build on. A ground-floor package
// imports, from this repository, only the ground floor and the client
// runtime (its own module, which imports nothing of the repository's); a
// package that drives the parser or the generator is a harness (harness/),
// not a helper.
var groundFloor = map[string]bool{"internal": true, "ir": true, "templates": true}

// belowEverything names the top-level folders every floor may import: the
// client runtime, which imports nothing of the repository's.
var belowEverything = map[string]bool{"runtime": true}

// importEdge is one import from a file in one top-level folder of the
// repository to a package in another.
type importEdge struct {
	from, to string // top-level folders
	test     bool   // the importing file is a test
	file     string // the importing file, relative to the repository root
	path     string // the imported package
}

// TestGroundFloorImportsNothingAbove fails when a package of a ground-floor
// folder (internal/, ir/, templates/), in its code or its tests, imports a
// package of the repository above the ground floor: a helper that imports
// what uses it is the arrow that runs back up.
func TestGroundFloorImportsNothingAbove(t *testing.T) {
	var bad []string
	for _, e := range repositoryImports(t, filepath.Join("..", "..")) {
		if groundFloor[e.from] && !groundFloor[e.to] && !belowEverything[e.to] {
			bad = append(bad, e.file+" imports "+e.path)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Fatalf("ground-floor packages import packages above them (move the importer to harness/, or the import down):\n%s",
			strings.Join(bad, "\n"))
	}
}

// TestTopLevelFoldersImportWithoutCycle fails when the imports of the code
// (tests aside) between the repository's top-level folders, every module's,
// form a cycle: some folder would then import, through the others, a folder
// that builds on it. Tests may import sideways (a ledger test runs against a
// store that imports the ledger; a judge in server/ drives a harness); the
// ground floor's tests are held by TestGroundFloorImportsNothingAbove. The
// failure names one import per arrow of the cycle.
func TestTopLevelFoldersImportWithoutCycle(t *testing.T) {
	edges := map[string]map[string]importEdge{}
	for _, e := range repositoryImports(t, filepath.Join("..", "..")) {
		if e.test {
			continue
		}
		if edges[e.from] == nil {
			edges[e.from] = map[string]importEdge{}
		}
		if _, seen := edges[e.from][e.to]; !seen {
			edges[e.from][e.to] = e
		}
	}
	if cycle := findCycle(edges); cycle != nil {
		var lines []string
		for _, e := range cycle {
			lines = append(lines, e.from+" -> "+e.to+" ("+e.file+" imports "+e.path+")")
		}
		t.Fatalf("the top-level folders import in a cycle:\n%s", strings.Join(lines, "\n"))
	}
}

// repositoryImports lists every import, in every Go file below root (tests
// included, test data and hidden folders left out), of a package of the
// repository in another top-level folder than the importing file's.
func repositoryImports(t *testing.T, root string) []importEdge {
	t.Helper()
	fset := token.NewFileSet()
	var out []importEdge
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || !strings.Contains(rel, "/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		from := topFolder(rel)
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			inRepo, ok := strings.CutPrefix(p, modulePath+"/")
			if !ok || topFolder(inRepo) == from {
				continue
			}
			out = append(out, importEdge{from: from, to: topFolder(inRepo), file: rel, path: p,
				test: strings.HasSuffix(rel, "_test.go")})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// topFolder returns the first element of a slash-separated path.
func topFolder(rel string) string {
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// findCycle returns the arrows of one cycle of the graph, or nil when it has
// none. Folders are visited in sorted order, so the cycle reported is the
// same from run to run.
func findCycle(edges map[string]map[string]importEdge) []importEdge {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []importEdge
	var visit func(string) []importEdge
	visit = func(n string) []importEdge {
		state[n] = onPath
		for _, to := range sortedKeys(edges[n]) {
			e := edges[n][to]
			switch state[to] {
			case onPath:
				path = append(path, e)
				for i, p := range path {
					if p.from == to {
						return path[i:]
					}
				}
			case unseen:
				path = append(path, e)
				if c := visit(to); c != nil {
					return c
				}
				path = path[:len(path)-1]
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range sortedKeys(edges) {
		if state[n] == unseen {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package parser

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/internal/yamltree"
	"github.com/idemgen/idemgen/ir"
)

// loadBothWays loads path with kin-openapi reading the parser's tree where it
// can and with it reading the bytes, fails the test unless both give the
// same API and findings, and reports whether the tree was used.
func loadBothWays(t *testing.T, path string, overlays ...string) bool {
	t.Helper()
	trace := &loadTrace{}
	api, diags, err := Load(path, Options{Overlays: overlays, trace: trace})
	apiB, diagsB, errB := Load(path, Options{Overlays: overlays, bytesOnly: true})
	if (err == nil) != (errB == nil) || (err != nil && err.Error() != errB.Error()) {
		t.Fatalf("%s: error %v from the tree, %v from the bytes", path, err, errB)
	}
	if !reflect.DeepEqual(diags, diagsB) {
		t.Errorf("%s: findings differ\ntree:\n%v\nbytes:\n%v", path, diags, diagsB)
	}
	if !reflect.DeepEqual(api, apiB) {
		t.Errorf("%s: the APIs differ%s", path, firstDifference(api, apiB))
	}
	return trace.treeDecoded
}

// firstDifference shows where two APIs' IR dumps first part.
func firstDifference(a, b *ir.API) string {
	if a == nil || b == nil {
		return ""
	}
	la, lb := strings.Split(dumpAPI(a), "\n"), strings.Split(dumpAPI(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "; first in the dump at line " + la[i] + "\nvs " + lb[i]
		}
	}
	return " (not in the dump)"
}

// TestTreeDecodeMatchesBytes loads every document of testdata/specs both
// ways: handing kin-openapi the parsed tree must never change an API or a
// finding, and it must be what loads the one-file documents.
func TestTreeDecodeMatchesBytes(t *testing.T) {
	root := filepath.Join(testutil.ModuleRoot(t), "testdata", "specs")
	decoded := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isSpecFile(path) {
			return err
		}
		if loadBothWays(t, path) {
			decoded++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"orders.yaml", "unicode.json", "openapi31.yaml", "streaming32.yaml"} {
		if !loadBothWays(t, filepath.Join(root, name)) {
			t.Errorf("%s was not decoded from the tree", name)
		}
	}
	if loadBothWays(t, filepath.Join(root, "multifile", "api.yaml")) {
		t.Error("a document of several files was decoded from the root's tree")
	}
	t.Logf("%d documents decoded from the tree", decoded)
}

func isSpecFile(path string) bool {
	switch filepath.Ext(path) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// TestTreeDecodeRealWorld does the same for the real documents, each of
// which must take the one-parse way.
func TestTreeDecodeRealWorld(t *testing.T) {
	dir := testutil.RealSpecs(t, "loads each real document twice")
	for name := range realSpecs {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s missing: %v", name, err)
			}
			if !loadBothWays(t, path) {
				t.Errorf("%s was not decoded from the tree", name)
			}
		})
	}
}

// TestTreeDecodeEdges covers what kin-openapi treats specially before it
// decodes: retagged scalars and keys decode as from the bytes, and aliases,
// infinities and null keys fall back to the bytes with the same outcome.
func TestTreeDecodeEdges(t *testing.T) {
	const head = "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\n"
	const op = "paths:\n  /a:\n    get:\n      operationId: getA\n      responses:\n        %s\n"
	cases := map[string]struct {
		doc  string
		tree bool
	}{
		"integer status key": {head + strings.Replace(op, "%s", "200: {description: ok}", 1), true},
		"local tag and timestamp": {head + strings.Replace(op, "%s",
			"'200':\n          description: !md ok\n          content:\n            application/json:\n              example: 2020-06-11T16:32:50-03:00", 1), true},
		"alias":    {head + "x-d: &d {description: ok}\n" + strings.Replace(op, "%s", "'200': *d", 1), false},
		"infinity": {head + "x-n: .inf\n" + strings.Replace(op, "%s", "'200': {description: ok}", 1), false},
		"null key": {head + strings.Replace(op, "%s", "'200': {description: ok}\n        ~: {description: no}", 1), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "api.yaml")
			if err := os.WriteFile(path, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := loadBothWays(t, path); got != tc.tree {
				t.Errorf("decoded from the tree: %v, want %v", got, tc.tree)
			}
		})
	}
}

// TestTreeDecodeOverlaid loads an overlaid document both ways: the overlay's
// nodes, located in the overlay file, are part of the tree kin-openapi decodes.
func TestTreeDecodeOverlaid(t *testing.T) {
	dir := writeFiles(t, map[string]string{"api.yaml": overlaySpec,
		"ov.yaml": "overlay: 1.0.0\nactions:\n  - {target: $.paths.*.post, update: {x-idempotent: true, summary: !md Overlaid, x-at: 2020-01-01}}\n",
	})
	if !loadBothWays(t, filepath.Join(dir, "api.yaml"), filepath.Join(dir, "ov.yaml")) {
		t.Error("an overlaid one-file document was not decoded from the tree")
	}
}

// TestRetagsRestore checks that the tree the parser keeps reading after
// kin-openapi decoded it is the tree it parsed.
func TestRetagsRestore(t *testing.T) {
	src := "200: {a: !md x, b: 2020-01-01}\n? 1.5\n: y\n"
	tree, err := parseTree([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	before := yamltree.Clone(tree)
	var r retags
	if !r.prepare(tree) || len(r) != 4 {
		t.Fatalf("prepare changed %d tags, want 4 (two keys, a local tag, a timestamp)", len(r))
	}
	r.restore()
	if !reflect.DeepEqual(tree, before) {
		t.Error("the tree differs from the parsed one after restore")
	}
}

// FuzzTreeDecodeMatchesBytes loads random documents both ways: decoding the
// parser's tree must give exactly what kin-openapi gives for the bytes.
func FuzzTreeDecodeMatchesBytes(f *testing.F) {
	addSeedFiles(f, "../testdata/specs/*.yaml", "../testdata/specs/*.json", "testdata/fuzz/*")
	f.Fuzz(func(t *testing.T, data []byte) {
		api, diags, err := LoadData("fuzz.yaml", data, Options{})
		apiB, diagsB, errB := LoadData("fuzz.yaml", data, Options{bytesOnly: true})
		if (err == nil) != (errB == nil) || (err != nil && err.Error() != errB.Error()) {
			t.Fatalf("error %v from the tree, %v from the bytes", err, errB)
		}
		if !reflect.DeepEqual(diags, diagsB) {
			t.Fatalf("findings differ\ntree:\n%v\nbytes:\n%v", diags, diagsB)
		}
		if !reflect.DeepEqual(api, apiB) {
			t.Fatalf("the APIs differ%s", firstDifference(api, apiB))
		}
	})
}

// TestReencodedNullsStayNull: a null written as nothing ({type}) is encoded
// as null, not as the empty quoted string yaml/v4 writes, when a repaired
// tree is handed to kin-openapi as bytes.
func TestReencodedNullsStayNull(t *testing.T) {
	tree, err := parseTree([]byte("a: {type}\nb:\nc: [~, null]\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := &docFile{root: tree, repaired: true}
	out, err := f.bytesOf()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": map[string]any{"type": nil}, "b": nil, "c": []any{nil, nil}}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("re-encoded %q reads back as %v, want %v", out, back, want)
	}
	if mapGet(mapGet(tree, "a"), "type").Value != "" {
		t.Error("encoding changed the parser's own tree")
	}
}

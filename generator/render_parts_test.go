package generator

import (
	"bytes"
	"go/format"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// TestPartsFormatLikeWhole checks that formatting a file in parts gives
// the bytes of formatting it whole, for every file of every real-world
// document, and that the large files were indeed cut.
func TestPartsFormatLikeWhole(t *testing.T) {
	dir := testutil.RealSpecs(t, "renders every real-world document twice")
	specs, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, spec := range specs {
		if ext := filepath.Ext(spec); ext == ".yaml" || ext == ".json" {
			t.Run(filepath.Base(spec), func(t *testing.T) { checkPartsLikeWhole(t, spec) })
		}
	}
}

// TestPartsFormatLikeWholeFixtures is TestPartsFormatLikeWhole on the
// repository's own documents, which run under -short.
func TestPartsFormatLikeWholeFixtures(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "*.*"))
	for _, spec := range specs {
		t.Run(filepath.Base(spec), func(t *testing.T) { checkPartsLikeWhole(t, spec) })
	}
}

// checkPartsLikeWhole renders each file of spec raw, formats it whole
// without the markers and in parts, and compares.
func checkPartsLikeWhole(t *testing.T, spec string) {
	api, diags, err := parser.Load(spec, parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags.Errors())
	}
	g := newGen(api, Config{Package: "api", SkipUnsupported: true})
	ops, _ := g.supportedOps()
	g.reserveNames(ops)
	g.markUploads(ops)
	files := map[string]*jen.File{"client_gen.go": g.clientFile(), "models_gen.go": g.modelsFile(api.Schemas)}
	for _, grp := range groupByFile(ops) {
		files[grp.name] = g.operationsFile(grp.ops)
	}
	for name, f := range files {
		f.NoFormat = true
		var raw bytes.Buffer
		if err := f.Render(&raw); err != nil {
			t.Fatal(name, err)
		}
		if n := bytes.Count(raw.Bytes(), partSep); n > 1 && !joinable(bytes.Split(raw.Bytes(), partSep)) {
			t.Errorf("%s: %d markers but not cut", name, n)
		}
		whole, err := format.Source(bytes.ReplaceAll(raw.Bytes(), partSep, []byte("\n")))
		if err != nil {
			t.Fatal(name, err)
		}
		parts, err := renderParts(f)
		if err != nil {
			t.Fatal(name, err)
		}
		if !bytes.Equal(parts, whole) {
			t.Errorf("%s: formatted in parts differs from whole at byte %d", name, firstDiff(parts, whole))
		}
		if bytes.Contains(parts, []byte(partMarker)) {
			t.Errorf("%s: a marker is left in the output", name)
		}
	}
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestPartsWithoutBlankLineFormatWhole checks the fallback: a marker after
// a declaration not followed by a blank line is removed and the file
// formatted whole.
func TestPartsWithoutBlankLineFormatWhole(t *testing.T) {
	f := jen.NewFile("p")
	f.Add(partMark())
	f.Var().Id("a").Op("=").Lit(1)
	f.Add(partMark())
	f.Var().Id("b").Op("=").Lit(2)
	got, err := renderParts(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := "package p\n\nvar a = 1\nvar b = 2\n"; string(got) != want {
		t.Errorf("renderParts = %q, want %q", got, want)
	}
}

// TestGroupPieces checks that pieces are grouped up to the size, in order,
// one newline between two pieces of a part.
func TestGroupPieces(t *testing.T) {
	pieces := [][]byte{[]byte("a\n\n"), []byte("b\n\n"), []byte(strings.Repeat("c", 10)), []byte("d\n\n")}
	got := groupPieces(pieces, 8)
	want := []string{"a\n\n\nb\n\n", "cccccccccc", "d\n\n"}
	if len(got) != len(want) {
		t.Fatalf("groupPieces = %q, want %q", got, want)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("part %d = %q, want %q", i, got[i], want[i])
		}
	}
}

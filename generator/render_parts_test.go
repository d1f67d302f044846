package generator

import (
	"bytes"
	"go/format"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// TestPartsFormatLikeWhole checks that formatting a file in parts gives
// the bytes of formatting it whole, for every file of every fixture and
// (without -short) real-world document, and that the large files were
// indeed cut.
func TestPartsFormatLikeWhole(t *testing.T) {
	forEachDocument(t, checkPartsLikeWhole)
}

// checkPartsLikeWhole renders each file of api raw, formats it whole
// without the markers and in parts, and compares.
func checkPartsLikeWhole(t *testing.T, api *ir.API) {
	g, ops := preparedGen(api)
	files := map[string]*jen.File{"client_gen.go": g.clientFile(), "models_gen.go": g.modelsFile(api.Schemas)}
	jobs := []renderJob{chunked("models_gen.go", api.Schemas, modelsPerChunk, g.modelPieces)}
	for _, grp := range groupByFile(ops) {
		files[grp.name] = g.operationsFile(grp.ops)
		jobs = append(jobs, chunked(grp.name, grp.ops, opsPerChunk, g.opPieces))
	}
	for _, job := range jobs {
		checkChunksLikeWhole(t, g, job)
	}
	for name, f := range files {
		f.NoFormat = true
		var raw bytes.Buffer
		if err := f.Render(&raw); err != nil {
			t.Fatal(name, err)
		}
		head, body, _ := bytes.Cut(raw.Bytes(), partSep)
		if n := bytes.Count(raw.Bytes(), partSep); n > 1 && !joinable(head, [][]byte{body}) {
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

// checkChunksLikeWhole checks that the job's chunks, rendered apart,
// merge (no fallback) into the bytes of its file rendered whole.
func checkChunksLikeWhole(t *testing.T, g *generation, job renderJob) {
	t.Helper()
	var all []piece
	heads := make([][]byte, job.n)
	for i := range job.n {
		all = append(all, job.chunk(i)...)
		raw, err := renderRaw(g.fileOf(job.chunk(i)))
		if err != nil {
			t.Fatal(job.name, err)
		}
		heads[i], _, _ = bytes.Cut(raw, partSep)
	}
	if _, ok := g.mergeHeads(heads); !ok {
		t.Errorf("%s: the chunks' imports did not merge", job.name)
	}
	raw, err := renderRaw(g.fileOf(all))
	if err != nil {
		t.Fatal(job.name, err)
	}
	whole, err := format.Source(bytes.ReplaceAll(raw, partSep, []byte("\n")))
	if err != nil {
		t.Fatal(job.name, err)
	}
	got, err := g.renderChunks(job.n, job.chunk)
	if err != nil {
		t.Fatal(job.name, err)
	}
	if !bytes.Equal(got, whole) {
		t.Errorf("%s: rendered in chunks differs from whole at byte %d", job.name, firstDiff(got, whole))
	}
}

// TestMergeHeadsRefusesRenamedImports checks the fallback: a chunk that
// renamed an import (as a file does on a clash) or two chunks that name a
// package differently are not merged.
func TestMergeHeadsRefusesRenamedImports(t *testing.T) {
	g := newGen(&ir.API{}, Config{Package: "api"})
	for _, heads := range [][]string{
		{"package api\n\nimport json1 \"encoding/json\"\n\n"},
		{"package api\n\nimport \"encoding/json\"\n\n", "package api\n\nimport json \"encoding/json\"\n\n"},
		{"package api\n\nimport (\njson \"example.com/json\"\n\"encoding/json\"\n)\n\n"},
	} {
		var hs [][]byte
		for _, h := range heads {
			hs = append(hs, []byte(h))
		}
		if _, ok := g.mergeHeads(hs); ok {
			t.Errorf("mergeHeads(%q) merged", heads)
		}
	}
	head, ok := g.mergeHeads([][]byte{[]byte("package api\n\nimport (\n\"encoding/json\"\n\"time\"\n)\n\n"), []byte("package api\n\nimport \"time\"\n\n")})
	if !ok || !bytes.Contains(head, []byte("import (\n\"encoding/json\"\n\"time\"\n)")) {
		t.Errorf("mergeHeads(json+time, time) = %q, %v", head, ok)
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

// TestPartsOf checks that a body is cut at the first marker past the size,
// and that the markers inside a part are blanked out.
func TestPartsOf(t *testing.T) {
	m := partMarker
	body := []byte("var a = 1\n\n" + m + "\nvar b = 2\n\n" + m + "\nvar c = 3\n")
	got := partsOf(body, 20)
	blank := strings.Repeat(" ", len(m))
	want := []string{"var a = 1\n\n" + blank + "\nvar b = 2\n", "var c = 3\n"}
	if len(got) != len(want) {
		t.Fatalf("partsOf = %q, want %q", got, want)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("part %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestSpecTextCannotForgeMarker checks that a description holding the
// marker's text does not make a line the renderer would cut at: comments
// from the document always start "// " or "//\t", or are "//".
func TestSpecTextCannotForgeMarker(t *testing.T) {
	for _, text := range []string{partMarker, "a\n\n" + partMarker + "\n\nb", "\t" + partMarker, "```\n" + partMarker + "\n```", "<pre>\n" + partMarker + "\n</pre>"} {
		f := jen.NewFile("p")
		f.Add(partMark())
		f.Add(comment(text).Type().Id("T").Int()).Line()
		raw, err := renderRaw(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range strings.Split(string(raw), "\n") {
			if strings.TrimSpace(l) == partMarker {
				n++
			}
		}
		if n != 1 || !bytes.Contains(raw, []byte(partMarker+"\n//")) {
			t.Errorf("comment(%q): %d marker lines in %q, want the one the generator placed", text, n, raw)
		}
	}
}

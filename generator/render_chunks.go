package generator

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// A piece is a group of top-level items (declarations, each followed by a
// blank line) that renderChunks may place in a part of its own: one model,
// or the declarations of one operation.
type piece []jen.Code

// fileOf returns a file holding the pieces, a part mark before each.
func (g *generation) fileOf(pieces []piece) *jen.File {
	f := g.newFile()
	for _, p := range pieces {
		f.Add(partMark())
		for _, c := range p {
			f.Add(c)
		}
	}
	return f
}

// renderChunks renders the file made of the pieces of chunks 0 to n-1 (in
// that order) with jen concurrently, one file per chunk, and formats it in
// parts (formatParts). jen renders a megabyte file in tens of milliseconds
// (OpenAI's models, 3.3 MB: about 55 ms of CPU); rendered whole, that time
// is spent on one core while the other waits.
//
// A chunk's file names its imports for itself. The bytes are those of one
// file when every chunk names each package the way a file that imports it
// alone does (its natural name) and no two packages share a name: a file
// renaming an import to avoid a clash (a "json1") depends on the order of
// first use, which chunks do not share. Otherwise the whole file is
// rendered at once.
func (g *generation) renderChunks(n int, chunk func(i int) []piece) ([]byte, error) {
	if n <= 1 {
		var pieces []piece
		if n == 1 {
			pieces = chunk(0)
		}
		return renderParts(g.fileOf(pieces))
	}
	chunks := make([][]piece, n)
	heads := make([][]byte, n)
	bodies := make([][]byte, n)
	errs := make([]error, n)
	parallel(n, func(i int) {
		chunks[i] = chunk(i)
		raw, err := renderRaw(g.fileOf(chunks[i]))
		heads[i], bodies[i], _ = bytes.Cut(raw, partSep)
		errs[i] = err
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	head, ok := g.mergeHeads(heads)
	if !ok {
		var all []piece
		for _, c := range chunks {
			all = append(all, c...)
		}
		return renderParts(g.fileOf(all))
	}
	var nonEmpty [][]byte
	for _, b := range bodies {
		if len(b) > 0 {
			nonEmpty = append(nonEmpty, b)
		}
	}
	return formatParts(head, nonEmpty)
}

// renderRaw renders f without formatting it.
func renderRaw(f *jen.File) ([]byte, error) {
	f.NoFormat = true
	var raw bytes.Buffer
	err := f.Render(&raw)
	return raw.Bytes(), err
}

// mergeHeads returns the head (header, package clause, imports) of the file
// holding every chunk, and whether the chunks named their imports as that
// file would (see renderChunks).
func (g *generation) mergeHeads(heads [][]byte) ([]byte, bool) {
	specs := map[string]string{} // quoted import path -> its import spec
	for _, h := range heads {
		for _, spec := range importSpecs(h) {
			path := spec[strings.LastIndexByte(spec, ' ')+1:]
			if prev, ok := specs[path]; ok && prev != spec {
				return nil, false
			}
			specs[path] = spec
		}
	}
	f := g.newFile()
	f.Add(partMark())
	names := map[string]bool{}
	for path, spec := range specs {
		name, natural, ok := g.naturalImport(path)
		if !ok || natural != spec || names[name] {
			return nil, false
		}
		names[name] = true
		f.Add(jen.Qual(unquote(path), "X"))
	}
	raw, err := renderRaw(f)
	// Nothing follows the mark when there are no imports.
	head, _, found := bytes.Cut(raw, []byte("\n"+partMarker))
	return head, err == nil && found
}

// naturalImport returns the name and the import spec a file gives the
// package at the quoted path when it imports nothing else.
func (g *generation) naturalImport(path string) (name, spec string, ok bool) {
	f := g.newFile()
	f.Add(partMark())
	f.Add(jen.Qual(unquote(path), "X"))
	raw, err := renderRaw(f)
	head, body, found := bytes.Cut(raw, partSep)
	specs := importSpecs(head)
	name, isQual := strings.CutSuffix(string(body), ".X")
	if err != nil || !found || !isQual || len(specs) != 1 {
		return "", "", false
	}
	return name, specs[0], true
}

// importSpecs returns the import specs (`name "path"` or `"path"`) of a
// head as jen writes it: "import spec" alone, or one spec a line between
// "import (" and ")".
func importSpecs(head []byte) []string {
	var specs []string
	block := false
	for _, l := range strings.Split(string(head), "\n") {
		switch {
		case l == "import (":
			block = true
		case l == ")":
			block = false
		case block:
			specs = append(specs, l)
		case strings.HasPrefix(l, "import "):
			specs = append(specs, strings.TrimPrefix(l, "import "))
		}
	}
	return specs
}

// unquote returns the import path of a quoted one.
func unquote(quoted string) string {
	s, err := strconv.Unquote(quoted)
	if err != nil {
		return quoted
	}
	return s
}

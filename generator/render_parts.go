package generator

import (
	"bytes"
	"go/format"

	"github.com/dave/jennifer/jen"
)

// A large file is formatted in parts, concurrently: go/format was most of
// the time of generating a document whose models file is megabytes long
// (OpenAI's is 3.3 MB, Stripe's 9 MB), and one goroutine formatting it
// alone left the other cores idle for most of the run. jen renders the
// whole file raw (so imports are named once, exactly as before), with
// partMark between groups of declarations; the raw source is cut at the
// marks, the pieces regrouped into parts of about partSize bytes, each part
// formatted as a declaration list, and the parts joined with the one blank
// line gofmt puts between two top-level declarations. The bytes are those
// of formatting the whole file (checked by TestPartsFormatLikeWhole on every
// real-world document and by the goldens).

// partMarker is the line placed between two groups of declarations. No
// other line of generated source reads like it: comments from the document
// start with "// " or "//\t" or are "//" (canonicalComment), the
// generator's own say nothing like it, and string literals are quoted on
// one line.
const partMarker = "//idemgen:part"

// partSep is a marker as it appears in raw source: jen puts each top-level
// item on lines of its own.
var partSep = []byte("\n" + partMarker + "\n")

// partSize is the size of raw source formatted in one part: large enough
// that the cost of starting a parse is nothing, small enough to balance
// the parts of a megabyte file across the cores.
const partSize = 64 << 10

// partMark returns the statement separating two groups of declarations.
// The group before it must end with .Line() or f.Line(), which leaves a
// blank line after it, as every top-level declaration the generator emits
// does.
func partMark() jen.Code {
	return jen.Comment(partMarker)
}

// renderParts renders f, formatting it in parts where it has partMarks.
func renderParts(f *jen.File) ([]byte, error) {
	raw, err := renderRaw(f)
	if err != nil {
		return nil, err
	}
	return formatParts(bytes.Split(raw, partSep))
}

// formatParts formats the pieces of raw source cut at the marks: the first
// as a file, the others grouped into parts formatted concurrently as
// declaration lists.
func formatParts(pieces [][]byte) ([]byte, error) {
	if !joinable(pieces) {
		return format.Source(bytes.Join(pieces, []byte("\n")))
	}
	parts := groupPieces(pieces[1:], partSize)
	out := make([][]byte, 1+len(parts))
	errs := make([]error, len(out))
	parallel(len(out), func(i int) {
		src := pieces[0]
		if i > 0 {
			src = parts[i-1]
		}
		out[i], errs[i] = format.Source(src)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return joinParts(out), nil
}

// joinable reports whether the source without the markers (the pieces
// joined by newlines: a marker took the newline that starts the next item)
// has a blank line where each marker was, where gofmt then puts exactly one
// blank line. Otherwise the file is formatted whole, without the markers.
func joinable(pieces [][]byte) bool {
	for _, p := range pieces[:len(pieces)-1] {
		if !bytes.HasSuffix(p, []byte("\n")) {
			return false
		}
	}
	return true
}

// groupPieces concatenates consecutive pieces into parts of about size
// bytes each, keeping a blank line between two pieces.
func groupPieces(pieces [][]byte, size int) [][]byte {
	var parts [][]byte
	var cur []byte
	for _, p := range pieces {
		if len(cur) > 0 && len(cur)+len(p) > size {
			parts = append(parts, cur)
			cur = nil
		}
		if len(cur) > 0 {
			cur = append(cur, '\n')
		}
		cur = append(cur, p...)
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// joinParts joins the formatted head (header, package clause, imports and
// any declarations before the first marker) and the formatted parts with
// one blank line between two parts, as gofmt separates two declarations.
// A part without code (its declarations were all empty) adds nothing.
func joinParts(out [][]byte) []byte {
	n := 0
	for _, p := range out {
		n += len(p) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, out[0]...)
	for _, p := range out[1:] {
		p = bytes.TrimSpace(p)
		if len(p) == 0 {
			continue
		}
		buf = append(buf, '\n')
		buf = append(buf, p...)
		buf = append(buf, '\n')
	}
	return buf
}

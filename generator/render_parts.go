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
// file raw (renderChunks: in chunks, under one import block), with partMark
// between two groups of declarations; the raw source is cut at the marks
// into parts of about partSize bytes (slices of it: a mark inside a part is
// blanked out), each part is formatted as a declaration list, and the parts
// are joined with the one blank line gofmt puts between two top-level
// declarations. The bytes are those of formatting the whole file (checked
// by TestPartsFormatLikeWhole on every fixture and real-world document, and
// by the goldens).

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
	head, body, found := bytes.Cut(raw, partSep)
	if !found {
		return format.Source(raw)
	}
	return formatParts(head, [][]byte{body})
}

// formatParts formats a file: the head (the raw source before the first
// marker) as a file, and the bodies (raw source after a marker, each with
// markers of its own) cut into parts formatted concurrently as declaration
// lists. The file's raw source is head and bodies joined by markers.
func formatParts(head []byte, bodies [][]byte) ([]byte, error) {
	if !joinable(head, bodies) {
		whole := bytes.Join(append([][]byte{head}, bodies...), partSep)
		return format.Source(bytes.ReplaceAll(whole, partSep, []byte("\n")))
	}
	srcs := [][]byte{head}
	for _, b := range bodies {
		srcs = append(srcs, partsOf(b, partSize)...)
	}
	out := make([][]byte, len(srcs))
	errs := make([]error, len(out))
	parallel(len(out), func(i int) {
		out[i], errs[i] = format.Source(srcs[i])
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return joinParts(out), nil
}

// joinable reports whether the source without the markers (a marker took
// the newline that starts the next item, so the source without it is what
// comes before and after joined by a newline) has a blank line where each
// marker was, where gofmt then puts exactly one blank line. Otherwise the
// file is formatted whole, without the markers.
func joinable(head []byte, bodies [][]byte) bool {
	if len(bodies) > 0 && !bytes.HasSuffix(head, []byte("\n")) {
		return false
	}
	for k, b := range bodies {
		for i := bytes.Index(b, partSep); i >= 0; {
			if i == 0 || b[i-1] != '\n' {
				return false
			}
			next := bytes.Index(b[i+len(partSep):], partSep)
			if next < 0 {
				break
			}
			i += len(partSep) + next
		}
		if k < len(bodies)-1 && !bytes.HasSuffix(b, []byte("\n")) {
			return false
		}
	}
	return true
}

// partsOf cuts body at its markers into parts of about size bytes, slices
// of body (nothing is copied). A marker within a part is blanked out in
// place: a line of spaces is a blank line to gofmt, and joinable has made
// sure one is already there, so the formatted part is the same.
func partsOf(body []byte, size int) [][]byte {
	var parts [][]byte
	start := 0
	for off := 0; ; {
		i := bytes.Index(body[off:], partSep)
		if i < 0 {
			break
		}
		m := off + i
		if m-start >= size {
			parts = append(parts, body[start:m])
			start = m + len(partSep)
		} else {
			copy(body[m+1:], markerBlanks)
		}
		off = m + len(partSep)
	}
	return append(parts, body[start:])
}

// markerBlanks overwrites a marker.
var markerBlanks = bytes.Repeat([]byte(" "), len(partMarker))

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

package annotate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// insertion is text to add at a byte offset of the original document.
type insertion struct {
	off  int
	text string
}

// splicer collects insertions and applies them to the original bytes, which
// is what keeps every untouched byte identical (re-encoding a YAML node tree
// would reflow quoting and indentation of lines nobody edited).
type splicer struct {
	idx  *lineIndex
	json bool
	// compact marks a JSON file written without spaces after colons
	// (`{"a":1}`); its entries are written the same way.
	compact bool
	ins     []insertion
}

// errNoInsertionPoint reports a layout the splicer does not handle.
var errNoInsertionPoint = errors.New("cannot find where to insert x-idempotent in this layout")

// insert plans the addition of x-idempotent to the operation op, written
// under the mapping key key.
func (s *splicer) insert(key, op *node, e Edit) error {
	if op.flow {
		return s.insertFlowText(op, s.flowEntry(e))
	}
	return s.insertBlockText(key, op, func(indent string, step int) string { return s.blockEntry(indent, step, e) })
}

// insertBlock adds the entry as the first line of a YAML block mapping,
// right after the line of its key, indented like the mapping's first key.
// Inserting before any comment that precedes the first key keeps that comment
// attached to the key it describes.
func (s *splicer) insertBlockText(key, op *node, text func(indent string, step int) string) error {
	first := s.idx.lineStart(op.line)
	if op.line <= key.line || strings.Trim(string(s.idx.src[first:op.off]), " ") != "" {
		return errNoInsertionPoint
	}
	indent := string(s.idx.src[first:op.off])
	step := op.col - key.col
	if step <= 0 {
		step = 2
	}
	s.ins = append(s.ins, insertion{off: s.idx.lineStart(key.line + 1), text: text(indent, step)})
	return nil
}

// blockEntry renders the x-idempotent entry as block YAML lines.
func (s *splicer) blockEntry(indent string, step int, e Edit) string {
	eol := s.idx.eol()
	var b strings.Builder
	if e.Value == Keyed {
		in1, in2 := indent+strings.Repeat(" ", step), indent+strings.Repeat(" ", 2*step)
		fmt.Fprintf(&b, "%sx-idempotent:%s%skey:%s%sin: header%s%sname: %s%s",
			indent, eol, in1, eol, in2, eol, in2, e.KeyName, eol)
	} else {
		fmt.Fprintf(&b, "%sx-idempotent: %s%s", indent, e.Value, eol)
	}
	return b.String()
}

// insertFlow adds the entry as the first member of a `{...}` mapping (a JSON
// object or a YAML flow mapping): on its own line, indented like the first
// member, when members are one per line; inline otherwise.
func (s *splicer) insertFlowText(op *node, entry string) error {
	src := s.idx.src
	if op.off >= len(src) || src[op.off] != '{' {
		return errNoInsertionPoint
	}
	sep := ", "
	if s.compact {
		sep = ","
	}
	if len(op.keys) == 0 {
		s.ins = append(s.ins, insertion{off: op.off + 1, text: entry})
		return nil
	}
	f := op.keys[0].off
	line := s.idx.lineOf(f)
	ls := s.idx.lineStart(line)
	indent := string(src[ls:f])
	if line == s.idx.lineOf(op.off) || strings.Trim(indent, " \t") != "" {
		s.ins = append(s.ins, insertion{off: f, text: entry + sep})
		return nil
	}
	s.ins = append(s.ins, insertion{off: ls, text: indent + entry + "," + s.idx.eol()})
	return nil
}

// flowEntry renders the entry in JSON (compact: without spaces) or YAML flow
// syntax.
func (s *splicer) flowEntry(e Edit) string {
	if s.json {
		entry := fmt.Sprintf(`"x-idempotent": %s`, e.Value)
		if e.Value == Keyed {
			entry = fmt.Sprintf(`"x-idempotent": {"key": {"in": "header", "name": %q}}`, e.KeyName)
		}
		if s.compact {
			entry = strings.NewReplacer(`": `, `":`, `, "`, `,"`).Replace(entry)
		}
		return entry
	}
	if e.Value == Keyed {
		return fmt.Sprintf("x-idempotent: {key: {in: header, name: %s}}", e.KeyName)
	}
	return fmt.Sprintf("x-idempotent: %s", e.Value)
}

// apply returns the original bytes with every insertion added.
func (s *splicer) apply() []byte {
	src := s.idx.src
	if len(s.ins) == 0 {
		return slices.Clone(src)
	}
	slices.SortStableFunc(s.ins, func(a, b insertion) int { return a.off - b.off })
	size := len(src)
	for _, in := range s.ins {
		size += len(in.text)
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, in := range s.ins {
		out = append(out, src[prev:in.off]...)
		out = append(out, in.text...)
		prev = in.off
	}
	return append(out, src[prev:]...)
}

package ledger

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// canonical writes the document's canonical form (see CanonicalJSON).
func (d *jsonDoc) canonical() []byte {
	return d.emit(make([]byte, 0, len(d.in)), 0)
}

func (d *jsonDoc) emit(out []byte, i int) []byte {
	n := d.nodes[i]
	switch n.kind {
	case 'l':
		return append(out, d.in[n.start:n.end]...)
	case '"':
		raw := d.in[n.start:n.end]
		if !hasByte(raw, '\\') {
			return appendJSONString(out, raw)
		}
		d.scratch = unescapeJSON(d.scratch[:0], raw)
		return appendJSONString(out, d.scratch)
	case '[':
		out = append(out, '[')
		for c := n.first; c >= 0; c = d.nodes[c].next {
			if c != n.first {
				out = append(out, ',')
			}
			out = d.emit(out, c)
		}
		return append(out, ']')
	}
	return d.emitObject(out, n)
}

// emitObject writes the members sorted by name, as encoding/json writes a
// map; of members with one name, the last one counts, as when decoding
// into a map.
func (d *jsonDoc) emitObject(out []byte, n jnode) []byte {
	base := len(d.order)
	for c := n.first; c >= 0; c = d.nodes[c].next {
		d.order = append(d.order, c)
	}
	members := d.order[base:]
	cmp := func(a, b int) int { return bytes.Compare(d.key(a), d.key(b)) }
	if !slices.IsSortedFunc(members, cmp) {
		slices.SortStableFunc(members, cmp)
	}
	out = append(out, '{')
	top := len(d.order)
	for j := base; j < top; j++ {
		c := d.order[j]
		if j+1 < top && bytes.Equal(d.key(c), d.key(d.order[j+1])) {
			continue // a later member of the same name replaces this one
		}
		if out[len(out)-1] != '{' {
			out = append(out, ',')
		}
		out = append(appendJSONString(out, d.key(c)), ':')
		out = d.emit(out, c)
	}
	d.order = d.order[:base]
	return append(out, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s, decoded text, as encoding/json's encoder does
// without HTML escaping: quotes, backslashes and control characters
// escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(out, s []byte) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			out = appendEscape(out, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(append(out, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			out = append(append(out, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(out, s[start:]...), '"')
}

func appendEscape(out []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(out, '\\', c)
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	return append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// unescapeJSON appends the decoded contents of a valid JSON string whose
// surrogate escapes all come in pairs (parseJSONDoc checked both).
func unescapeJSON(out, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				r = utf16.DecodeRune(r, hex4(raw[i+3:]))
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, raw[i])
		}
	}
	return out
}

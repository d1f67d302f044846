package ledger

import (
	"encoding/json"
	"unicode/utf8"
)

// jsonDoc is a JSON body parsed once into a flat tree, so that one pass
// checks its member names (CheckJSON) and writes its canonical form
// (CanonicalJSON) without encoding/json's reflection, tokens and maps.
// It parses only what parseJSONDoc admits: a document json.Valid accepts,
// in valid UTF-8, whose \u escapes of surrogates all come in pairs. On
// such a document encoding/json decodes every string exactly, so the form
// written here is byte for byte the one CanonicalJSON's reference path
// (decode into any with UseNumber, encode without HTML escaping) writes;
// FuzzCanonicalJSON holds the two to that.
type jsonDoc struct {
	in    []byte
	pos   int
	nodes []jnode
	// keys holds the decoded names of members whose names had escapes.
	keys []byte
	// order is a stack of member indexes, sorted per object while writing.
	order []int
	// scratch holds a decoded string value while it is written.
	scratch []byte
	// check enables the member name check (CheckJSON).
	check bool
}

// jnode is one value of the tree.
type jnode struct {
	// kind is '{', '[', '"' or 'l' (a number, true, false or null).
	kind byte
	// keyEsc: the member name is keys[keyStart:keyEnd], else in[...].
	keyEsc bool
	// start and end bound the raw text of a literal, or of a string's
	// contents between its quotes.
	start, end int
	// keyStart and keyEnd bound the decoded member name (members only).
	keyStart, keyEnd int
	// first is the first child, next the next sibling; -1 for none.
	first, next int
}

// parseJSONDoc parses body when the fast path may: ok is false when body is
// not one valid JSON value, is not UTF-8, or escapes a lone surrogate, and
// the callers then take encoding/json's path.
func parseJSONDoc(body []byte) (*jsonDoc, bool) {
	if !json.Valid(body) || !utf8.Valid(body) || checkSurrogates(body) != nil {
		return nil, false
	}
	d, _ := newJSONDoc(body, false) // no check, so no error
	return d, true
}

// newJSONDoc parses body, which parseJSONDoc's conditions hold for; the
// error is the name check's (a *dupNameError) when check is set.
func newJSONDoc(body []byte, check bool) (*jsonDoc, error) {
	d := &jsonDoc{in: body, check: check, nodes: make([]jnode, 0, 16), order: make([]int, 0, 16)}
	if _, err := d.value(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *jsonDoc) skipSpace() {
	for d.pos < len(d.in) {
		switch d.in[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value parses the value at d.pos and returns its node index.
func (d *jsonDoc) value() (int, error) {
	d.skipSpace()
	i := len(d.nodes)
	d.nodes = append(d.nodes, jnode{first: -1, next: -1})
	switch d.in[d.pos] {
	case '{':
		d.nodes[i].kind = '{'
		return i, d.object(i)
	case '[':
		d.nodes[i].kind = '['
		return i, d.array(i)
	case '"':
		s, e := d.str()
		d.nodes[i].kind, d.nodes[i].start, d.nodes[i].end = '"', s, e
	default:
		s := d.pos
		for d.pos < len(d.in) && !isDelim(d.in[d.pos]) {
			d.pos++
		}
		d.nodes[i].kind, d.nodes[i].start, d.nodes[i].end = 'l', s, d.pos
	}
	return i, nil
}

func isDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// str steps over the string at d.pos and returns its contents' bounds.
func (d *jsonDoc) str() (int, int) {
	s := d.pos + 1
	j := s
	for d.in[j] != '"' {
		if d.in[j] == '\\' {
			j++
		}
		j++
	}
	d.pos = j + 1
	return s, j
}

func (d *jsonDoc) array(i int) error {
	d.pos++
	d.skipSpace()
	if d.in[d.pos] == ']' {
		d.pos++
		return nil
	}
	prev := -1
	for n := 0; ; n++ {
		c, err := d.value()
		d.link(i, prev, c)
		if err != nil {
			return atIndex(err, n)
		}
		prev = c
		d.skipSpace()
		d.pos++ // ',' or ']'
		if d.in[d.pos-1] == ']' {
			return nil
		}
	}
}

// link makes c the child of parent after prev.
func (d *jsonDoc) link(parent, prev, c int) {
	if prev < 0 {
		d.nodes[parent].first = c
	} else {
		d.nodes[prev].next = c
	}
}

func (d *jsonDoc) object(i int) error {
	d.pos++
	d.skipSpace()
	if d.in[d.pos] == '}' {
		d.pos++
		return nil
	}
	var names nameSet
	prev := -1
	for {
		d.skipSpace()
		ks, ke, esc := d.name()
		if d.check {
			if err := names.add(d, ks, ke, esc); err != nil {
				return err
			}
		}
		d.skipSpace()
		d.pos++ // ':'
		c, err := d.value()
		n := &d.nodes[c]
		n.keyStart, n.keyEnd, n.keyEsc = ks, ke, esc
		d.link(i, prev, c)
		if err != nil {
			return atName(err, string(d.key(c)))
		}
		prev = c
		d.skipSpace()
		d.pos++ // ',' or '}'
		if d.in[d.pos-1] == '}' {
			return nil
		}
	}
}

// name reads a member name: its bounds in d.in, or, when it has escapes,
// in d.keys after decoding it there.
func (d *jsonDoc) name() (int, int, bool) {
	s, e := d.str()
	raw := d.in[s:e]
	if !hasByte(raw, '\\') {
		return s, e, false
	}
	ks := len(d.keys)
	d.keys = unescapeJSON(d.keys, raw)
	return ks, len(d.keys), true
}

// key is the decoded name of member c.
func (d *jsonDoc) key(c int) []byte {
	n := &d.nodes[c]
	if n.keyEsc {
		return d.keys[n.keyStart:n.keyEnd]
	}
	return d.in[n.keyStart:n.keyEnd]
}

func (d *jsonDoc) keyAt(s, e int, esc bool) []byte {
	if esc {
		return d.keys[s:e]
	}
	return d.in[s:e]
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

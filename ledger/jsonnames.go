package ledger

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// nameSet holds the member names of one object seen so far, to find two
// that a decoder may take for one (CheckJSON). The first few are compared
// pairwise; past them, by their folded form in a map, so that an object of
// many members costs linear time.
type nameSet struct {
	small [8]nameRef
	n     int
	big   map[string]nameRef
}

// nameRef is a decoded name's place in a jsonDoc (jsonDoc.keyAt).
type nameRef struct {
	s, e int
	esc  bool
}

func (ns *nameSet) add(d *jsonDoc, s, e int, esc bool) error {
	ref := nameRef{s, e, esc}
	name := d.keyAt(s, e, esc)
	if ns.big == nil && ns.n < len(ns.small) {
		for _, p := range ns.small[:ns.n] {
			if prev := d.keyAt(p.s, p.e, p.esc); foldEqual(prev, name) {
				return &dupNameError{prev: string(prev), name: string(name)}
			}
		}
		ns.small[ns.n] = ref
		ns.n++
		return nil
	}
	if ns.big == nil {
		ns.big = make(map[string]nameRef, 2*len(ns.small))
		for _, p := range ns.small[:ns.n] {
			ns.big[foldName(d.keyAt(p.s, p.e, p.esc))] = p
		}
	}
	f := foldName(name)
	if p, dup := ns.big[f]; dup {
		return &dupNameError{prev: string(d.keyAt(p.s, p.e, p.esc)), name: string(name)}
	}
	ns.big[f] = ref
	return nil
}

// foldName is the form two names share when they differ only in case:
// strings.ToLower(strings.ToUpper(name)), computed without either call
// for ASCII names.
func foldName(b []byte) string {
	if !isASCII(b) {
		return strings.ToLower(strings.ToUpper(string(b)))
	}
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = lowerASCII(c)
	}
	return string(out)
}

// foldEqual is foldName(a) == foldName(b).
func foldEqual(a, b []byte) bool {
	if !isASCII(a) || !isASCII(b) {
		return foldName(a) == foldName(b)
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// dupNameError is a name check's finding on its way out of the tree:
// segs collects the JSON pointer's segments, innermost first.
type dupNameError struct {
	prev, name string
	segs       []string
}

func (e *dupNameError) Error() string { return e.ambiguous().Error() }

// ambiguous is the error CheckJSON returns for e.
func (e *dupNameError) ambiguous() error {
	var b strings.Builder
	for _, s := range slices.Backward(e.segs) {
		b.WriteString("/")
		b.WriteString(s)
	}
	return fmt.Errorf("%w: the object at %q has the members %q and %q, which a decoder may take for one",
		ErrAmbiguousBody, clip(b.String()), clip(e.prev), clip(e.name))
}

// atIndex and atName add the segment of the value err was found in.
func atIndex(err error, i int) error {
	if e, ok := err.(*dupNameError); ok {
		e.segs = append(e.segs, strconv.Itoa(i))
	}
	return err
}

func atName(err error, name string) error {
	if e, ok := err.(*dupNameError); ok {
		e.segs = append(e.segs, pointerEscape(name))
	}
	return err
}

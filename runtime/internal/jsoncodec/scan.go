package jsoncodec

import (
	"bytes"
	"encoding/json"
)

// Kinds is a set of JSON value Kinds: what a JSON value is, or what a Go
// type accepts. Numbers are split by their literal: an integer literal fits
// integer and float types, a fraction or exponent only float types.
type Kinds uint8

const (
	KindNull Kinds = 1 << iota
	KindBool
	KindString
	KindInt
	KindFloat
	KindArray
	KindObject

	KindAll = KindNull | KindBool | KindString | KindInt | KindFloat | KindArray | KindObject
)

// has reports whether the set holds every kind of k.
func (s Kinds) Has(k Kinds) bool { return k != 0 && s&k == k }

// container reports whether a value of kind k may nest other values.
func (k Kinds) Container() bool { return k&(KindArray|KindObject) != 0 }

// Member is one Member of a scanned object: its name and where its value
// lies in the object's bytes.
type Member struct {
	Name       string
	Start, End int
	Kind       Kinds
}

// Shallow is what one scan of a JSON value tells without decoding it: its
// kind, an object's members, the kind of an array's first element.
type Shallow struct {
	Kind    Kinds
	Members []Member
	First   Kinds
}

// scan reads the top level of the JSON value data (trimmed): for an object
// its Member names and the kind and bounds of each Member value, which are
// skipped, never decoded. It does not validate: the decoder that runs next
// refuses invalid JSON, and a garbled scan only ranks variants badly.
func Scan(data []byte) Shallow {
	return ScanInto(data, nil)
}

// ScanInto is Scan appending an object's members to buf, which a caller
// may keep on its stack.
func ScanInto(data []byte, buf []Member) Shallow {
	v := Shallow{Kind: KindOf(data)}
	switch v.Kind {
	case KindObject:
		v.Members = scanMembers(data, buf)
	case KindArray:
		i := skipSpace(data, 1)
		if i < len(data) && data[i] != ']' {
			v.First = KindOf(data[i:skipValue(data, i)])
		}
	}
	return v
}

// ScanMembers lists the members of the object data.
func ScanMembers(data []byte) []Member {
	return scanMembers(data, nil)
}

// scanMembers appends the members of the object data to out.
func scanMembers(data []byte, out []Member) []Member {
	i := skipSpace(data, 1)
	for i < len(data) && data[i] == '"' {
		end := stringEnd(data, i+1)
		name := MemberName(data[i:min(end+1, len(data))])
		i = skipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			break
		}
		start := skipSpace(data, i+1)
		i = skipValue(data, start)
		out = append(out, Member{Name: name, Start: start, End: i, Kind: KindOf(data[start:i])})
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ',' {
			break
		}
		i = skipSpace(data, i+1)
	}
	return out
}

// MemberName returns the name a quoted Member name stands for; escapes
// (rare in names) are decoded by encoding/json.
func MemberName(quoted []byte) string {
	if len(quoted) < 2 {
		return ""
	}
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

// KindOf returns the kind of the JSON value v from its first byte (and, for
// a number, whether its literal has a fraction or an exponent); 0 for
// anything else.
func KindOf(v []byte) Kinds {
	if len(v) == 0 {
		return 0
	}
	switch v[0] {
	case '{':
		return KindObject
	case '[':
		return KindArray
	case '"':
		return KindString
	case 't', 'f':
		return KindBool
	case 'n':
		return KindNull
	}
	if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return 0
	}
	if bytes.ContainsAny(v, ".eE") {
		return KindFloat
	}
	return KindInt
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just after the value starting at i: a
// string to its closing quote, an object or array to its matching bracket
// (strings inside skipped whole), anything else to the next delimiter.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return min(stringEnd(data, i+1)+1, len(data))
	case '{', '[':
		d := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = stringEnd(data, i+1)
			case '{', '[':
				d++
			case '}', ']':
				d--
				if d == 0 {
					return i + 1
				}
			}
		}
		return len(data)
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// stringEnd returns the index of the quote that ends the string whose
// content starts at i (len(data) when it is not closed).
func stringEnd(data []byte, i int) int {
	for i < len(data) {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return len(data)
		}
		i += q
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		i++
	}
	return len(data)
}

package sqlstore

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// The header column holds the stored headers as the JSON object
// json.Marshal writes for an http.Header: names sorted, each with its
// array of values. encodeHeader and decodeHeader write and read the common
// case (printable ASCII that JSON writes as it is) by hand, without
// reflection; anything else goes through encoding/json, so the column's
// bytes are the same either way and rows written by earlier versions read
// back unchanged.

// encodeHeader is string(json.Marshal(h)).
func encodeHeader(h http.Header) (string, error) {
	var arr [16]string
	names := arr[:0]
	n := 2
	for k, vs := range h {
		if vs == nil || !plainJSON(k) {
			return marshalHeader(h)
		}
		for _, v := range vs {
			if !plainJSON(v) {
				return marshalHeader(h)
			}
			n += len(v) + 3
		}
		names = append(names, k)
		n += len(k) + 6
	}
	if h == nil {
		return marshalHeader(h)
	}
	slices.Sort(names)
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(k)
		b.WriteString(`":[`)
		for j, v := range h[k] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.WriteString(v)
			b.WriteByte('"')
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String(), nil
}

func marshalHeader(h http.Header) (string, error) {
	b, err := json.Marshal(h)
	return string(b), err
}

// plainJSON reports whether json.Marshal writes s between quotes as it is:
// printable ASCII other than the quote, the backslash and the three
// characters it escapes for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// decodeHeader is json.Unmarshal of a stored header into an http.Header.
// The fast path reads what encodeHeader's fast path writes; the values
// share one string and one backing array (each capped, so an append copies).
func decodeHeader(b string) (http.Header, error) {
	if h, ok := parsePlainHeader(b); ok {
		return h, nil
	}
	h := http.Header{}
	if err := json.Unmarshal([]byte(b), &h); err != nil {
		return nil, err
	}
	return h, nil
}

func parsePlainHeader(b string) (http.Header, bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, false
	}
	for _, c := range []byte(b) {
		// Escapes, and bytes encoding/json might read otherwise (invalid
		// UTF-8 becomes U+FFFD), are left to it.
		if c < 0x20 || c > 0x7e || c == '\\' {
			return nil, false
		}
	}
	s := b[1 : len(b)-1]
	h := make(http.Header, strings.Count(s, `":[`))
	vals := make([]string, 0, strings.Count(s, `"`)/2)
	for s != "" {
		name, rest, ok := cutQuoted(s)
		if !ok || !strings.HasPrefix(rest, ":[") {
			return nil, false
		}
		rest = rest[2:]
		first := len(vals)
		for !strings.HasPrefix(rest, "]") {
			if len(vals) > first {
				if rest, ok = strings.CutPrefix(rest, ","); !ok {
					return nil, false
				}
			}
			var v string
			if v, rest, ok = cutQuoted(rest); !ok {
				return nil, false
			}
			vals = append(vals, v)
		}
		h[name] = vals[first:len(vals):len(vals)]
		s = rest[1:]
		if s != "" {
			if s, ok = strings.CutPrefix(s, ","); !ok || s == "" {
				return nil, false
			}
		}
	}
	return h, true
}

// cutQuoted splits `"x"rest` into x and rest.
func cutQuoted(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", "", false
	}
	return s[1 : 1+end], s[2+end:], true
}

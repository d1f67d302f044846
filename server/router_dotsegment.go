package idemsrv

import "errors"

// errDotSegment is a path parameter whose decoded value is "." or "..":
// a handler that joins it into a file path or a URL would step out of
// where the template put it.
var errDotSegment = errors.New("a path parameter is never a dot-segment (. or ..)")

// dotSegment reports whether raw, an escaped path segment or parameter
// value, is "." or ".." once unescaped: each dot may be sent as %2e or
// %2E, which net/http does not resolve and a handler would decode. It
// does not allocate, so the router's lookup stays allocation-free.
func dotSegment(raw string) bool {
	dots := 0
	for s := raw; s != ""; dots++ {
		switch {
		case dots == 2:
			return false
		case s[0] == '.':
			s = s[1:]
		case len(s) >= 3 && s[0] == '%' && s[1] == '2' && (s[2] == 'e' || s[2] == 'E'):
			s = s[3:]
		default:
			return false
		}
	}
	return dots > 0
}

// dotValue reports whether a decoded scalar path value is a dot-segment:
// a label (.v) or matrix (;name=v) value can decode to one from a segment
// that is not.
func dotValue(v value) bool {
	return v.present && !v.isList && !v.isObj && (v.scalar == "." || v.scalar == "..")
}

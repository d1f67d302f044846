package idemsrv

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

var (
	// ErrDuplicateRoute is a template that is another operation's with the
	// same method, up to the names of its parameters: the router could not
	// tell them apart, so the second is not routed.
	ErrDuplicateRoute = errors.New("another operation has the same method and path template")
	// ErrPathTemplate is a path template the router cannot route (an
	// unbalanced brace, two parameters with nothing between them).
	ErrPathTemplate = errors.New("the path template cannot be routed")
)

// RouteError is an operation that could not be routed; NewServer returns
// it. It wraps ErrDuplicateRoute or ErrPathTemplate.
type RouteError struct {
	// Op is the operation ID; Method and Path its method and template.
	Op, Method, Path string
	// Other is the operation that already has the route (ErrDuplicateRoute).
	Other string
	Err   error
}

func (e *RouteError) Error() string {
	msg := fmt.Sprintf("idemsrv: operation %s (%s %s): %v", e.Op, e.Method, e.Path, e.Err)
	if e.Other != "" {
		msg += " (" + e.Other + ")"
	}
	return msg
}

func (e *RouteError) Unwrap() error { return e.Err }

// part is one piece of a template segment: escaped literal text, or a
// parameter.
type part struct {
	lit   string
	param bool
}

// segment is one compiled segment of a path template. A literal segment is
// one literal part (the empty literal for an empty segment).
type segment []part

func (s segment) literal() bool { return len(s) == 1 && !s[0].param }

// key is the segment with its parameters written {}: templates equal up
// to parameter names have equal keys.
func (s segment) key() string {
	var b strings.Builder
	for _, p := range s {
		if p.param {
			b.WriteString("{}")
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// literalBytes counts the literal text of s: of two templated segments,
// the one with more literal text is tried first.
func (s segment) literalBytes() int {
	n := 0
	for _, p := range s {
		n += len(p.lit)
	}
	return n
}

// scan matches raw, one escaped segment of a request path, against s,
// appending the raw values of its parameters to vals when keep is set. A
// parameter ends at the first occurrence of the literal text that follows
// it in the segment (the last one takes the rest) and is never empty, so
// one pass decides: a value that contains the literal after it does not
// match as its author meant. A value that unescapes to a dot-segment
// (%2e%2e) does not match either.
func (s segment) scan(raw string, vals []string, keep bool) ([]string, bool) {
	pos := 0
	for i, p := range s {
		if !p.param {
			if !strings.HasPrefix(raw[pos:], p.lit) {
				return vals, false
			}
			pos += len(p.lit)
			continue
		}
		end := len(raw)
		if i+1 < len(s) {
			j := strings.Index(raw[pos:], s[i+1].lit)
			if j < 0 {
				return vals, false
			}
			end = pos + j
		}
		if end == pos || dotSegment(raw[pos:end]) {
			return vals, false
		}
		if keep {
			vals = append(vals, raw[pos:end])
		}
		pos = end
	}
	return vals, pos == len(raw)
}

// compileTemplate splits an OpenAPI path template into segments and lists
// its parameter names in order. A query string written into the template
// ("/assistants?beta=true") is not part of the path.
func compileTemplate(tmpl string) ([]segment, []string, error) {
	path, _, _ := strings.Cut(tmpl, "?")
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return nil, nil, fmt.Errorf("%w: it does not start with /", ErrPathTemplate)
	}
	var segs []segment
	var names []string
	for _, s := range strings.Split(rest, "/") {
		seg, err := compileSegment(s, &names)
		if err != nil {
			return nil, nil, err
		}
		segs = append(segs, seg)
	}
	for i, n := range names {
		for _, m := range names[:i] {
			if m == n {
				return nil, nil, fmt.Errorf("%w: it names {%s} twice", ErrPathTemplate, n)
			}
		}
	}
	return segs, names, nil
}

// compileSegment compiles one segment, appending its parameter names.
func compileSegment(s string, names *[]string) (segment, error) {
	var out segment
	for s != "" {
		i := strings.IndexAny(s, "{}")
		if i < 0 {
			out = append(out, part{lit: escapedLiteral(s)})
			break
		}
		if s[i] == '}' {
			return nil, fmt.Errorf("%w: a } without its {", ErrPathTemplate)
		}
		if i > 0 {
			out = append(out, part{lit: escapedLiteral(s[:i])})
		}
		j := strings.IndexAny(s[i+1:], "{}")
		if j <= 0 || s[i+1+j] != '}' {
			return nil, fmt.Errorf("%w: a { without its } or its name", ErrPathTemplate)
		}
		if len(out) > 0 && out[len(out)-1].param {
			return nil, fmt.Errorf("%w: {%s} follows another parameter with nothing between them", ErrPathTemplate, s[i+1:i+1+j])
		}
		*names = append(*names, s[i+1:i+1+j])
		out = append(out, part{param: true})
		s = s[i+2+j:]
	}
	if len(out) == 0 {
		out = segment{{}}
	}
	return out, nil
}

// escapedLiteral is literal template text as a request's escaped path
// carries it: the client writes template text into the path as it is, and
// net/url escapes what a path cannot hold (a space becomes %20).
func escapedLiteral(s string) string {
	u, err := url.PathUnescape(s)
	if err != nil || strings.Contains(u, "/") {
		return s
	}
	return (&url.URL{Path: u}).EscapedPath()
}

package generator

import (
	"net/url"
	"slices"
	"strings"
)

// routeTemplate reads a path template (with its fixed query, requestPath)
// the way the server's router does
// (idemsrv's compileTemplate; the two must agree, or NewServer would refuse
// what the generator planned): key is the template with every parameter
// written {} and its literal text escaped as a request carries it, params
// the place of each parameter among the template's parameters, and problem
// why the router cannot take it ("" when it can). The key ends with the
// template's query pairs, sorted.
func routeTemplate(tmpl string) (key string, params map[string]int, problem string) {
	path, q, _ := strings.Cut(tmpl, "?")
	params = map[string]int{}
	var b strings.Builder
	for s := path; s != ""; {
		i := strings.IndexAny(s, "{}")
		if i < 0 {
			b.WriteString(escapedLiteral(s))
			break
		}
		if s[i] == '}' {
			return "", nil, "a } without its {"
		}
		b.WriteString(escapedLiteral(s[:i]))
		j := strings.IndexAny(s[i+1:], "{}")
		if j <= 0 || s[i+1+j] != '}' {
			return "", nil, "a { without its } or its name"
		}
		name := s[i+1 : i+1+j]
		if _, dup := params[name]; dup {
			return "", nil, "it names {" + name + "} twice"
		}
		if i == 0 && strings.HasSuffix(b.String(), "{}") {
			return "", nil, "{" + name + "} follows another parameter with nothing between them"
		}
		params[name] = len(params)
		b.WriteString("{}")
		s = s[i+2+j:]
	}
	if !strings.HasPrefix(path, "/") {
		return "", nil, "it does not start with /"
	}
	// A query string in the template is part of the route: the router takes
	// for it only the requests that carry its pairs.
	query := slices.DeleteFunc(strings.Split(q, "&"), func(p string) bool { return p == "" })
	slices.Sort(query)
	return b.String() + "?" + strings.Join(query, "&"), params, ""
}

// escapedLiteral is literal template text as a request's escaped path
// carries it (a space as %20), segment by segment.
func escapedLiteral(s string) string {
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		u, err := url.PathUnescape(seg)
		if err == nil && !strings.Contains(u, "/") {
			segs[i] = (&url.URL{Path: u}).EscapedPath()
		}
	}
	return strings.Join(segs, "/")
}

// pathIndex is the place of the path parameter name among rt's template
// parameters; -1 (answered 400 "missing") for one the template lacks,
// which the parser has already warned about.
func pathIndex(rt *serverRoute, name string) int {
	if i, ok := rt.params[name]; ok {
		return i
	}
	return -1
}

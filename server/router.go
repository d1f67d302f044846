package idemsrv

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
)

// router routes a request to an operation by its method and escaped path,
// against the OpenAPI path templates of the spec (docs/server.md,
// "Routing"). It is a tree with one level per path segment: at each level
// a literal segment is tried before the templated ones (those with more
// literal text first), and a branch that fails deeper gives way to the next
// one. Every node is visited at most once per request, so a request costs
// time linear in its path, and a lookup does not allocate.
type router struct {
	root node
	// byPattern finds a route by the r.Pattern the router set, so that a
	// Request can read the parameter values of its route.
	byPattern map[string]*route
}

// route is one operation's method and template.
type route struct {
	method  string
	pattern string // "GET /files/{name}.{ext}", set as r.Pattern
	op      string
	segs    []segment
	// query are the name=value pairs of a query string written into the
	// template ("/responses?beta=true"), sorted: the route takes only
	// requests that carry them all.
	query []string
	h     http.Handler
}

// node is one segment of one or more templates.
type node struct {
	seg    segment
	lits   map[string]*node // literal children by their escaped text
	tmpls  []*node          // templated children, in the order they are tried
	routes []*route         // the templates ending here, one per method
}

func newRouter() *router { return &router{byPattern: map[string]*route{}} }

// handle adds h for op under method and template. A template another
// operation already has with this method (up to parameter names) is an
// ErrDuplicateRoute; one that cannot be routed an ErrPathTemplate.
func (rt *router) handle(op, method, template string, h http.Handler) error {
	segs, _, err := compileTemplate(template)
	if err != nil {
		return &RouteError{Op: op, Method: method, Path: template, Err: err}
	}
	_, q, _ := strings.Cut(template, "?")
	query := slices.DeleteFunc(strings.Split(q, "&"), func(p string) bool { return p == "" })
	slices.Sort(query)
	n := &rt.root
	for _, s := range segs {
		n = n.child(s)
	}
	for _, r := range n.routes {
		if r.method == method && slices.Equal(r.query, query) {
			return &RouteError{Op: op, Method: method, Path: template, Err: ErrDuplicateRoute,
				Other: "routed to " + r.op + " as " + r.pattern}
		}
	}
	r := &route{method: method, pattern: method + " " + template, op: op, segs: segs, query: query, h: h}
	n.routes = append(n.routes, r)
	rt.byPattern[r.pattern] = r
	return nil
}

// child returns n's child for s, adding it if it is new.
func (n *node) child(s segment) *node {
	if s.literal() {
		if c := n.lits[s[0].lit]; c != nil {
			return c
		}
		if n.lits == nil {
			n.lits = map[string]*node{}
		}
		c := &node{seg: s}
		n.lits[s[0].lit] = c
		return c
	}
	k := s.key()
	for _, c := range n.tmpls {
		if c.seg.key() == k {
			return c
		}
	}
	c := &node{seg: s}
	n.tmpls = append(n.tmpls, c)
	slices.SortStableFunc(n.tmpls, func(a, b *node) int {
		if d := cmp.Compare(b.seg.literalBytes(), a.seg.literalBytes()); d != 0 {
			return d
		}
		return strings.Compare(a.seg.key(), b.seg.key())
	})
	return c
}

// lookup is one request's search: its method and raw query, and how many
// segments it compared (a test checks the bound).
type lookup struct {
	method, query string
	steps         int
}

// find returns the route for l.method below n, rest being the escaped path
// after the slash that ends n's segment: literal child first, then the
// templated ones in order, the first branch that reaches a route winning.
func (n *node) find(rest string, l *lookup) *route {
	seg, tail, more := strings.Cut(rest, "/")
	l.steps++
	if c := n.lits[seg]; c != nil {
		if r := c.at(tail, more, l); r != nil {
			return r
		}
	}
	if dotSegment(seg) {
		// A dot-segment is never a parameter value, escaped or not: the
		// client does not send one, a proxy would have resolved it into
		// another path, and a handler would step out of its template.
		return nil
	}
	for _, c := range n.tmpls {
		l.steps++
		if _, ok := c.seg.scan(seg, nil, false); ok {
			if r := c.at(tail, more, l); r != nil {
				return r
			}
		}
	}
	return nil
}

// at continues find below n, or answers n's route when the path ends here.
func (n *node) at(tail string, more bool, l *lookup) *route {
	if more {
		return n.find(tail, l)
	}
	return n.route(l.method, l.query)
}

// route returns n's route for method that takes query: of several, the
// one whose template asks for the most query pairs. HEAD is served by GET
// when the spec has no HEAD operation for the path (net/http drops the
// body).
func (n *node) route(method, query string) *route {
	var best *route
	for _, r := range n.routes {
		if r.method == method && hasPairs(query, r.query) && (best == nil || len(r.query) > len(best.query)) {
			best = r
		}
	}
	if best == nil && method == http.MethodHead {
		return n.route(http.MethodGet, query)
	}
	return best
}

// hasPairs reports whether the raw query carries every pair of want, as
// the template writes them.
func hasPairs(query string, want []string) bool {
	for _, w := range want {
		found := false
		for rest := query; rest != "" && !found; {
			var p string
			p, rest, _ = strings.Cut(rest, "&")
			found = p == w
		}
		if !found {
			return false
		}
	}
	return true
}

// methods adds the methods of every template below n that matches rest
// and whose query pairs query carries.
func (n *node) methods(rest, query string, out []string) []string {
	seg, tail, more := strings.Cut(rest, "/")
	var next []*node
	if c := n.lits[seg]; c != nil {
		next = append(next, c)
	}
	if !dotSegment(seg) {
		for _, c := range n.tmpls {
			if _, ok := c.seg.scan(seg, nil, false); ok {
				next = append(next, c)
			}
		}
	}
	for _, c := range next {
		if more {
			out = c.methods(tail, query, out)
			continue
		}
		for _, r := range c.routes {
			if hasPairs(query, r.query) {
				out = append(out, r.method)
			}
		}
	}
	return out
}

// ServeHTTP serves r with its operation's handler, setting r.Pattern to
// the operation's method and template; a path no template matches is
// answered 404, one whose templates take other methods 405 (see unrouted).
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/")
	if ok {
		l := lookup{method: r.Method, query: r.URL.RawQuery}
		if found := rt.root.find(rest, &l); found != nil {
			r.Pattern = found.pattern
			found.h.ServeHTTP(w, r)
			return
		}
	}
	rt.unrouted(w, r, rest, ok)
}

// values appends the raw (escaped) values of the path parameters of the
// route r was routed to, in template order; ok is false when r was not
// routed by rt.
func (rt *router) values(r *http.Request, vals []string) ([]string, bool) {
	found := rt.byPattern[r.Pattern]
	if found == nil {
		return vals, false
	}
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	for _, s := range found.segs {
		seg, tail, _ := strings.Cut(rest, "/")
		rest = tail
		var ok bool
		if vals, ok = s.scan(seg, vals, true); !ok {
			return vals, false
		}
	}
	return vals, true
}

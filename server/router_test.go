package idemsrv

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/wire"
)

// testRouter routes each "METHOD template" to a handler that records the
// pattern it was routed as and the raw values of its parameters.
func testRouter(t *testing.T, patterns ...string) (*router, *routed) {
	t.Helper()
	rt, got := newRouter(), &routed{}
	for _, p := range patterns {
		method, tmpl, _ := strings.Cut(p, " ")
		err := rt.handle(p, method, tmpl, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.pattern = r.Pattern
			got.vals, got.ok = rt.values(r, nil)
		}))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	return rt, got
}

type routed struct {
	pattern string
	vals    []string
	ok      bool
}

// serve routes one request, returning what the handler saw and the answer.
func serve(rt *router, got *routed, method, target string) (routed, *httptest.ResponseRecorder) {
	*got = routed{}
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return *got, w
}

// TestRouterLiteralFirstWithBacktracking: at each segment a literal beats
// a template; a literal branch that fails deeper (no template below it, or
// none for the method) gives way to the templated one.
func TestRouterLiteralFirstWithBacktracking(t *testing.T) {
	rt, got := testRouter(t,
		"GET /a/{x}/c", "GET /a/b/{y}", "POST /a/b/{y}", "GET /a/{x}/c/d", "PUT /a/{x}/c", "GET /a/b/c/{z}")
	for _, tc := range []struct {
		method, path, pattern string
		vals                  []string
	}{
		{"GET", "/a/b/c", "GET /a/b/{y}", []string{"c"}},
		{"GET", "/a/z/c", "GET /a/{x}/c", []string{"z"}},
		{"GET", "/a/b/d", "GET /a/b/{y}", []string{"d"}},
		{"PUT", "/a/b/c", "PUT /a/{x}/c", []string{"b"}},         // the literal branch has no PUT
		{"GET", "/a/b/c/d", "GET /a/b/c/{z}", []string{"d"}},     // literal c beats {y}
		{"GET", "/a/b/x/d", "GET /a/{x}/c/d", nil},               // no: x is not c
		{"GET", "/a/q/c/d", "GET /a/{x}/c/d", []string{"q"}},     // {x} then literal
		{"HEAD", "/a/z/c", "GET /a/{x}/c", []string{"z"}},        // HEAD is served by GET
		{"GET", "/a/b%2Fc/c", "GET /a/{x}/c", []string{"b%2Fc"}}, // an escaped slash stays in its value
	} {
		r, w := serve(rt, got, tc.method, tc.path)
		if tc.vals == nil {
			if w.Code != http.StatusNotFound {
				t.Errorf("%s %s: %d (%s), want 404", tc.method, tc.path, w.Code, r.pattern)
			}
			continue
		}
		if r.pattern != tc.pattern || !r.ok || !reflect.DeepEqual(r.vals, tc.vals) {
			t.Errorf("%s %s: routed to %q with %q (%v), want %q with %q", tc.method, tc.path, r.pattern, r.vals, r.ok, tc.pattern, tc.vals)
		}
	}
}

// TestRouterMixedSegments: a segment mixes literal text and parameters; a
// parameter ends at the first occurrence of the literal that follows it,
// and a segment with more literal text is tried before one with less.
func TestRouterMixedSegments(t *testing.T) {
	rt, got := testRouter(t,
		"GET /Accounts/{AccountSid}/Addresses/{Sid}.json", "GET /Accounts/{AccountSid}/Addresses.json",
		"GET /files/{name}.{ext}", "GET /files/{id}", "POST /v1/{id}:cancel", "POST /v1/{id}",
		"GET /p/x{a}-{b}y", "GET /sp ace/{v}", "GET /dir/", "GET /")
	for _, tc := range []struct {
		method, path, pattern string
		vals                  []string
	}{
		{"GET", "/Accounts/AC1/Addresses/AD2.json", "GET /Accounts/{AccountSid}/Addresses/{Sid}.json", []string{"AC1", "AD2"}},
		{"GET", "/Accounts/AC1/Addresses.json", "GET /Accounts/{AccountSid}/Addresses.json", []string{"AC1"}},
		{"GET", "/files/a.tar.gz", "GET /files/{name}.{ext}", []string{"a", "tar.gz"}},
		{"GET", "/files/a%2Eb.gz", "GET /files/{name}.{ext}", []string{"a%2Eb", "gz"}},
		{"GET", "/files/readme", "GET /files/{id}", []string{"readme"}},
		{"GET", "/files/.txt", "GET /files/{id}", []string{".txt"}}, // {name} is never empty
		{"POST", "/v1/op1:cancel", "POST /v1/{id}:cancel", []string{"op1"}},
		{"POST", "/v1/op1", "POST /v1/{id}", []string{"op1"}},
		{"GET", "/p/x1-2-3y", "GET /p/x{a}-{b}y", []string{"1", "2-3"}},
		{"GET", "/sp%20ace/1", "GET /sp ace/{v}", []string{"1"}},
		{"GET", "/dir/", "GET /dir/", []string{}},
		{"GET", "/", "GET /", []string{}},
	} {
		r, _ := serve(rt, got, tc.method, tc.path)
		if r.pattern != tc.pattern || !r.ok || len(r.vals) != len(tc.vals) || len(tc.vals) > 0 && !reflect.DeepEqual(r.vals, tc.vals) {
			t.Errorf("%s %s: routed to %q with %q (%v), want %q with %q", tc.method, tc.path, r.pattern, r.vals, r.ok, tc.pattern, tc.vals)
		}
	}
	for _, path := range []string{"/p/x-y", "/p/x1y", "/dir", "/files/", "/files/..", "/files/.", "//", "/Accounts/AC1/Addresses/.json"} {
		if r, w := serve(rt, got, "GET", path); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d (routed to %q), want 404", path, w.Code, r.pattern)
		}
	}
}

// TestRouterUnrouted: an unknown path is 404, a known path with another
// method 405 naming the methods its templates take (from every template
// that matches it), OPTIONS 204 with the same Allow; all refusals are
// problems.
func TestRouterUnrouted(t *testing.T) {
	rt, got := testRouter(t, "GET /a/{x}/c", "POST /a/b/{y}", "DELETE /a/b/c")
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/nope", 404, ""},
		{"GET", "/a/b", 404, ""},
		{"GET", "/a/b/c/d", 404, ""},
		{"PATCH", "/a/b/c", 405, "DELETE, GET, HEAD, OPTIONS, POST"},
		{"PATCH", "/a/x/c", 405, "GET, HEAD, OPTIONS"},
		{"HEAD", "/a/b/d", 405, "OPTIONS, POST"},
		{"OPTIONS", "/a/b/c", 204, "DELETE, GET, HEAD, OPTIONS, POST"},
		{"OPTIONS", "/zzz", 404, ""},
	} {
		_, w := serve(rt, got, tc.method, tc.path)
		problem := w.Header().Get("Content-Type") == "application/problem+json"
		if w.Code != tc.status || w.Header().Get("Allow") != tc.allow || problem != (tc.status >= 400) {
			t.Errorf("%s %s: %d Allow %q %v, want %d Allow %q", tc.method, tc.path, w.Code, w.Header().Get("Allow"), w.Header(), tc.status, tc.allow)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.URL.Path, r.URL.RawPath = "*", ""
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, r)
	if w.Code != http.StatusNotFound {
		t.Errorf("path *: %d, want 404", w.Code)
	}
}

// TestRouterRefusesWhatItCannotRoute: a template another has with the same
// method up to parameter names, and templates with no way to split them,
// are errors naming the operation.
func TestRouterRefusesWhatItCannotRoute(t *testing.T) {
	rt, _ := testRouter(t, "GET /a/{x}.json", "GET /a/{x}", "GET /b/{x}/{y}")
	for tmpl, want := range map[string]error{
		"/a/{y}.json":  ErrDuplicateRoute,
		"/b/{p}/{q}":   ErrDuplicateRoute,
		"/c/{x}{y}":    ErrPathTemplate,
		"/c/{x":        ErrPathTemplate,
		"/c/x}":        ErrPathTemplate,
		"/c/{}":        ErrPathTemplate,
		"c/{x}":        ErrPathTemplate,
		"/c/{x}/d/{x}": ErrPathTemplate,
	} {
		err := rt.handle("op", "GET", tmpl, http.NotFoundHandler())
		var re *RouteError
		if !errors.Is(err, want) || !errors.As(err, &re) || re.Op != "op" || re.Path != tmpl {
			t.Errorf("%s: %v, want %v", tmpl, err, want)
		}
	}
	if err := rt.handle("op", "POST", "/a/{y}.json", http.NotFoundHandler()); err != nil {
		t.Errorf("same template, another method: %v", err)
	}
	if err := rt.handle("op", "GET", "/assistants?beta=true", http.NotFoundHandler()); err != nil {
		t.Errorf("a query in the template: %v", err)
	}
}

// hostileTemplates are the templates the hostile paths run against.
var hostileTemplates = []string{
	"GET /a/{x}/c", "GET /a/b/{y}", "GET /a/{x}/{y}/{z}/e", "GET /m/{a}.{b}.{c}.{d}", "GET /m/{a}-{b}",
	"GET /n/{a}/{b}/{c}/{d}/{e}/{f}", "GET /n/{a}/{b}/x/{d}/{e}/g", "GET /n/a/{b}/{c}/x/{e}/{f}",
}

// TestRouterHostilePathsCostLinearTime: however long the path and however
// many segments or separators it has, a lookup compares a bounded number
// of segments (each node of the tree at most once, each compare linear in
// its segment) and allocates nothing.
func TestRouterHostilePathsCostLinearTime(t *testing.T) {
	rt, _ := testRouter(t, hostileTemplates...)
	nodes := countNodes(&rt.root)
	long := strings.Repeat("x", 1<<20)
	for name, path := range map[string]string{
		"10k segments":       "/a" + strings.Repeat("/b", 10000),
		"10k slashes":        "/" + strings.Repeat("/", 10000),
		"long segment":       "/a/" + long + "/c",
		"many separators":    "/m/" + strings.Repeat(".", 1<<16) + strings.Repeat("-", 1<<16),
		"many dots":          "/m/" + strings.Repeat("a.", 1<<16),
		"deep backtracking":  "/n/a/b/x/d/e/" + long,
		"escaped everything": "/a/" + strings.Repeat("%2F", 1<<16) + "/c/",
	} {
		l := lookup{method: "GET"}
		rt.root.find(strings.TrimPrefix(path, "/"), &l)
		if l.steps > nodes {
			t.Errorf("%s: %d segment compares for a tree of %d nodes", name, l.steps, nodes)
		}
		allocs := testing.AllocsPerRun(10, func() {
			l := lookup{method: "GET"}
			rt.root.find(strings.TrimPrefix(path, "/"), &l)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup", name, allocs)
		}
	}
}

// countNodes counts the nodes below n, n included.
func countNodes(n *node) int {
	c := 1
	for _, k := range n.lits {
		c += countNodes(k)
	}
	for _, k := range n.tmpls {
		c += countNodes(k)
	}
	return c
}

// TestRouterQueryInTemplate: a template with a query string
// ("/responses?beta=true", as OpenAI's document writes) takes the requests
// that carry its pairs, beside the same path without one.
func TestRouterQueryInTemplate(t *testing.T) {
	rt, got := testRouter(t, "POST /responses", "POST /responses?beta=true", "GET /assistants?beta=true")
	for _, tc := range []struct {
		method, target, pattern string
		status                  int
	}{
		{"POST", "/responses", "POST /responses", 200},
		{"POST", "/responses?beta=true", "POST /responses?beta=true", 200},
		{"POST", "/responses?x=1&beta=true&y=2", "POST /responses?beta=true", 200},
		{"POST", "/responses?beta=false", "POST /responses", 200},
		{"GET", "/assistants?beta=true", "GET /assistants?beta=true", 200},
		{"GET", "/assistants", "", 404},
	} {
		r, w := serve(rt, got, tc.method, tc.target)
		if w.Code != tc.status || r.pattern != tc.pattern {
			t.Errorf("%s %s: %d routed to %q, want %d %q", tc.method, tc.target, w.Code, r.pattern, tc.status, tc.pattern)
		}
	}
	if err := rt.handle("dup", "POST", "/responses?beta=true", http.NotFoundHandler()); !errors.Is(err, ErrDuplicateRoute) {
		t.Errorf("the same template and query twice: %v", err)
	}
}

// TestPathWithoutTheRouter: a request the router did not route has no path
// values; Path answers 400 naming the parameter, never panics.
func TestPathWithoutTheRouter(t *testing.T) {
	e, _ := New(nil)
	w := httptest.NewRecorder()
	d := e.Decode(w, httptest.NewRequest("GET", "/orders/1", nil))
	var id string
	d.Path(wire.Param{Name: "id", Style: wire.StyleSimple}, 0, &id)
	var pe *ParamError
	if !errors.As(d.err, &pe) || pe.Name != "id" || !d.Failed() || w.Code != http.StatusBadRequest {
		t.Errorf("err %v, answer %d", d.err, w.Code)
	}
}

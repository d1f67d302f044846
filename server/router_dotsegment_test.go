package idemsrv

import (
	"net/http"
	"net/http/httptest"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

// TestRouterRefusesEscapedDotSegments: a segment or a parameter value that
// unescapes to . or .. (%2e%2e, %2E, .%2e) is never routed to a handler,
// whatever the method: 404, as the plain dot-segments are.
func TestRouterRefusesEscapedDotSegments(t *testing.T) {
	rt, got := testRouter(t, "GET /files/{id}", "GET /files/{name}.{ext}", "GET /a/{x}/c", "POST /p/{x}:run", "GET /m/{name}.{ext}")
	for _, path := range []string{
		"/files/%2e%2e", "/files/%2E%2E", "/files/%2e", "/files/%2E", "/files/.%2e", "/files/%2e.",
		"/a/%2e%2e/c", "/a/.%2E/c", "/m/%2e%2e.json", "/m/a.%2e", "/m/..%2Ejson",
	} {
		for _, method := range []string{"GET", "PATCH"} {
			if r, w := serve(rt, got, method, path); w.Code != http.StatusNotFound || r.pattern != "" {
				t.Errorf("%s %s: %d, routed to %q %q, want 404", method, path, w.Code, r.pattern, r.vals)
			}
		}
	}
	if r, w := serve(rt, got, "POST", "/p/%2e%2e:run"); w.Code != http.StatusNotFound || r.pattern != "" {
		t.Errorf("POST /p/%%2e%%2e:run: %d, routed to %q %q", w.Code, r.pattern, r.vals)
	}
	// Dots that are not a whole segment or value still route; a mixed
	// segment whose part would be one falls back to the plain template,
	// whose value is the whole segment.
	for path, want := range map[string]string{
		"/files/%2e%2e%2e": "GET /files/{id}", "/files/a%2e": "GET /files/{id}",
		"/files/%2ex.json": "GET /files/{name}.{ext}", "/a/..x/c": "GET /a/{x}/c",
		"/files/%2e%2e.json": "GET /files/{id}", "/files/a.%2e": "GET /files/{id}",
	} {
		if r, _ := serve(rt, got, "GET", path); r.pattern != want {
			t.Errorf("GET %s: routed to %q, want %q", path, r.pattern, want)
		}
	}
}

// TestPathRefusesDecodedDotSegments: a label or matrix value that decodes
// to . or .. from a segment that is not one is answered 400 naming the
// parameter, and the handler never runs.
func TestPathRefusesDecodedDotSegments(t *testing.T) {
	for _, tc := range []struct {
		style wire.Style
		path  string
	}{
		{wire.StyleLabel, "/l/..."}, {wire.StyleLabel, "/l/.%2e%2E"}, {wire.StyleLabel, "/l/.%2e"},
		{wire.StyleMatrix, "/l/;id=.."}, {wire.StyleMatrix, "/l/;id=%2e"},
	} {
		e, ran := newTestEngine(t), 0
		handle(t, e, Route{Op: &idemrt.Operation{ID: "get", Method: "GET", Path: "/l/{id}"}}, func(w http.ResponseWriter, r *http.Request) {
			var id string
			d := e.Decode(w, r)
			d.Path(wire.Param{Name: "id", Style: tc.style}, 0, &id)
			if d.Failed() {
				return
			}
			ran++
		})
		w := httptest.NewRecorder()
		e.Root().ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
		if ran != 0 || w.Code != http.StatusBadRequest && w.Code != http.StatusNotFound {
			t.Errorf("%s: %d, handler ran %d times", tc.path, w.Code, ran)
		}
	}
}

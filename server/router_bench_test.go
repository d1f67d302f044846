package idemsrv

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// githubRoute is one operation of GitHub's document: its method, its path
// template, the ServeMux pattern for it ("" when there is none) and a
// request path that reaches it.
type githubRoute struct {
	method, template, pattern, path string
	params                          int
}

// githubRoutes reads the operations of ../shared/specs/github-api.json
// (IDEMGEN_SHARED_SPECS names another folder), in a stable order.
func githubRoutes(b *testing.B) []githubRoute {
	dir := os.Getenv("IDEMGEN_SHARED_SPECS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "specs")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "github-api.json"))
	if err != nil {
		b.Skipf("GitHub's document: %v", err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	var out []githubRoute
	for _, tmpl := range slices.Sorted(func(yield func(string) bool) {
		for k := range doc.Paths {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, m := range []string{"get", "put", "post", "delete", "patch", "head", "options"} {
			if _, ok := doc.Paths[tmpl][m]; ok {
				pattern, path, n := muxForm(tmpl)
				out = append(out, githubRoute{method: strings.ToUpper(m), template: tmpl, pattern: pattern, path: path, params: n})
			}
		}
	}
	return out
}

// muxForm is the ServeMux pattern of a template whose parameters are whole
// segments (as the generator wrote them before the router), a request
// path for it (parameter i becomes "v<i>") and its parameter count.
func muxForm(tmpl string) (pattern, path string, params int) {
	segs := strings.Split(strings.TrimPrefix(tmpl, "/"), "/")
	var p, r strings.Builder
	for _, s := range segs {
		p.WriteByte('/')
		r.WriteByte('/')
		if name, ok := strings.CutPrefix(s, "{"); ok && strings.HasSuffix(name, "}") && !strings.ContainsAny(name[:len(name)-1], "{}") {
			p.WriteString("{p" + strconv.Itoa(params) + "}")
			r.WriteString("v" + strconv.Itoa(params))
			params++
			continue
		}
		if strings.ContainsAny(s, "{} \t%") {
			return "", "", 0
		}
		p.WriteString(s)
		r.WriteString(s)
	}
	return p.String(), r.String(), params
}

// nopWriter is a ResponseWriter that keeps nothing.
type nopWriter struct{ h http.Header }

func (w nopWriter) Header() http.Header       { return w.h }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}

// benchRoutes builds both routers on GitHub's operations and the requests
// both can route (the ones ServeMux takes), each handler reading every path
// value once as a generated server does.
func benchRoutes(b *testing.B) (*http.ServeMux, *router, []*http.Request) {
	mux, rt := http.NewServeMux(), newRouter()
	var reqs []*http.Request
	for _, g := range githubRoutes(b) {
		n := g.params
		err := rt.handle(g.template, g.method, g.template, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var buf [4]string
			if vals, ok := rt.values(r, buf[:0]); !ok || len(vals) != n {
				b.Fatalf("%s %s: %d path values, want %d", r.Method, r.URL.Path, len(vals), n)
			}
		}))
		if err != nil {
			b.Fatal(err)
		}
		if g.pattern == "" || !register(mux, g.method+" "+g.pattern, n, b) {
			continue
		}
		reqs = append(reqs, httptest.NewRequest(g.method, g.path, nil))
	}
	return mux, rt, reqs
}

// register adds pattern to mux unless it overlaps one before it.
func register(mux *http.ServeMux, pattern string, params int, b *testing.B) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		for i := range params {
			if r.PathValue("p"+strconv.Itoa(i)) == "" {
				b.Fatalf("%s %s: no p%d", r.Method, r.URL.Path, i)
			}
		}
	})
	return true
}

// BenchmarkRouteGitHub routes GitHub's request paths (every operation
// ServeMux can take, one request per op) with the router and, for
// comparison, with http.ServeMux; each handler reads its path values.
//
//	cd server && go test -run '^$' -bench RouteGitHub -benchmem
func BenchmarkRouteGitHub(b *testing.B) {
	mux, rt, reqs := benchRoutes(b)
	b.Logf("%d of GitHub's operations routed by both", len(reqs))
	w := nopWriter{h: http.Header{}}
	for name, h := range map[string]http.Handler{"router": rt, "servemux": mux} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				h.ServeHTTP(w, reqs[i%len(reqs)])
			}
		})
	}
}

package idemsrv

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

type filter struct {
	Status   string `json:"status,omitempty"`
	Customer string `json:"customer_id,omitempty"`
	Min      *int   `json:"min,omitempty"`
}

// params is a params struct of every shape the client sends.
type params struct {
	ID     string
	Tags   []string
	Obj    filter
	Limit  *int32
	When   *time.Time
	Flag   bool
	Pipe   []int
	Space  []string
	Deep   *filter
	Ratio  float64
	Header []string
	Cookie string
	JSON   map[string]int
}

func allStyles() []struct {
	in string
	p  wire.Param
	f  func(*params) any
} {
	type c = struct {
		in string
		p  wire.Param
		f  func(*params) any
	}
	return []c{
		{"path", wire.Param{Name: "id", Style: wire.StyleSimple}, func(p *params) any { return &p.ID }},
		{"path", wire.Param{Name: "tags", Style: wire.StyleLabel, Explode: true}, func(p *params) any { return &p.Tags }},
		{"path", wire.Param{Name: "obj", Style: wire.StyleMatrix, Explode: true}, func(p *params) any { return &p.Obj }},
		{"query", wire.Param{Name: "limit", Style: wire.StyleForm, Explode: true}, func(p *params) any { return &p.Limit }},
		{"query", wire.Param{Name: "when", Style: wire.StyleForm, Explode: true}, func(p *params) any { return &p.When }},
		{"query", wire.Param{Name: "flag", Style: wire.StyleForm}, func(p *params) any { return &p.Flag }},
		{"query", wire.Param{Name: "pipe", Style: wire.StylePipeDelimited}, func(p *params) any { return &p.Pipe }},
		{"query", wire.Param{Name: "space", Style: wire.StyleSpaceDelimited}, func(p *params) any { return &p.Space }},
		{"query", wire.Param{Name: "deep", Style: wire.StyleDeepObject, Explode: true}, func(p *params) any { return &p.Deep }},
		{"query", wire.Param{Name: "ratio", Style: wire.StyleForm, Explode: true}, func(p *params) any { return &p.Ratio }},
		{"header", wire.Param{Name: "X-Tags", Style: wire.StyleSimple}, func(p *params) any { return &p.Header }},
		{"cookie", wire.Param{Name: "session", Style: wire.StyleForm}, func(p *params) any { return &p.Cookie }},
		{"query", wire.Param{Name: "js", Style: wire.StyleForm, Explode: true, JSON: true}, func(p *params) any { return &p.JSON }},
	}
}

// TestDecodeWhatTheClientEncodes builds a request with the client's
// wire.Builder and decodes it: every value comes back as it was sent,
// separators and escapes inside values included.
func TestDecodeWhatTheClientEncodes(t *testing.T) {
	lim, min, when := int32(7), 3, time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	sent := params{
		ID: "a,b/c d", Tags: []string{"x-y", "z"}, Obj: filter{Status: "paid", Customer: "c;1"},
		Limit: &lim, When: &when, Flag: true, Pipe: []int{1, 2, 3}, Space: []string{"a b", "c"},
		Deep: &filter{Status: "new&old", Min: &min}, Ratio: 0.25, Header: []string{"h1", "h2"},
		Cookie: "s=1; x", JSON: map[string]int{"a": 1},
	}
	server, _ := url.Parse("http://127.0.0.1/base")
	b := wire.NewBuilder(server, "GET", "/items/{id}/{tags}/{obj}")
	for _, s := range allStyles() {
		v := reflect.ValueOf(s.f(&sent)).Elem().Interface()
		map[string]func(wire.Param, any){"path": b.Path, "query": b.Query, "header": b.Header, "cookie": b.Cookie}[s.in](s.p, v)
	}
	req, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", req.URL.String(), nil)
	r.URL.RawPath, r.URL.Path = strings.TrimPrefix(req.URL.EscapedPath(), "/base"), strings.TrimPrefix(req.URL.Path, "/base")
	r.Header = req.Header
	e, _ := New(nil)
	var got params
	var derr error
	op := &idemrt.Operation{ID: "get", Method: "GET", Path: "/items/{id}/{tags}/{obj}"}
	err = e.Handle(Route{Op: op}, func(w http.ResponseWriter, r *http.Request) {
		d := e.Decode(w, r)
		for i, s := range allStyles() {
			switch s.in {
			case "path":
				d.Path(s.p, i, s.f(&got))
			case "query":
				d.Query(s.p, s.f(&got))
			case "header":
				d.Header(s.p, s.f(&got))
			case "cookie":
				d.Cookie(s.p, s.f(&got))
			}
		}
		derr = d.err
	})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	e.Root().ServeHTTP(w, r)
	if w.Code != http.StatusOK || derr != nil {
		t.Fatalf("decode: %d %v (url %s)", w.Code, derr, req.URL)
	}
	if !reflect.DeepEqual(got, sent) {
		t.Errorf("decoded\n%+v\nwant\n%+v\n(url %s)", got, sent, req.URL)
	}
}

func TestDecodeRefusesWithTheParameterName(t *testing.T) {
	e, _ := New(nil)
	w := httptest.NewRecorder()
	d := e.Decode(w, httptest.NewRequest("GET", "/x?limit=seven", nil))
	var lim *int32
	d.Query(wire.Param{Name: "limit", Style: wire.StyleForm, Explode: true}, &lim)
	var pe *ParamError
	if !errors.As(d.err, &pe) || pe.Name != "limit" || pe.In != "query" {
		t.Fatalf("err = %v, want a ParamError for query limit", d.err)
	}
	if !d.Failed() || w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `query parameter \"limit\"`) {
		t.Errorf("answer %d %s", w.Code, w.Body.String())
	}
}

func TestJSONBodyBounds(t *testing.T) {
	e, _ := New(nil, WithMaxBody(64), WithBodyLimits(3, 0))
	for name, tc := range map[string]struct {
		body, ct string
		status   int
	}{
		"too big":   {`{"a":"` + strings.Repeat("x", 80) + `"}`, "application/json", 413},
		"too deep":  {`{"a":[[[1]]]}`, "application/json", 400},
		"not JSON":  {`{"a":`, "application/json", 400},
		"wrong ct":  {`{"a":1}`, "text/plain", 415},
		"missing":   {``, "application/json", 400},
		"deep ok":   {`{"a":[[1]]}`, "", 200},
		"string ok": {`{"a":"[[[[[["}`, "application/problem+json", 200},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/", bytes.NewBufferString(tc.body))
		if tc.ct != "" {
			r.Header.Set("Content-Type", tc.ct)
		}
		var v any
		d := e.Decode(w, r)
		d.JSON(&v, true)
		status := 200
		if d.Failed() {
			status = w.Code
		}
		if status != tc.status {
			t.Errorf("%s: status %d, want %d (%s)", name, status, tc.status, w.Body.String())
		}
	}
}

package runtime

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

type paramStatus string

type paramFilter struct {
	Status     paramStatus `json:"status,omitempty"`
	CustomerID *string     `json:"customer_id,omitempty"`
	Range      *struct {
		From int `json:"from"`
	} `json:"range,omitempty"`
}

// The examples of the OpenAPI 3 specification's style table: a primitive 5,
// an array [3, 4, 5] and an object {"role": "admin", "firstName": "Alex"}.
var (
	stylePrim  = 5
	styleArray = []int{3, 4, 5}
	styleObj   = struct {
		Role      string `json:"role"`
		FirstName string `json:"firstName"`
	}{"admin", "Alex"}
)

func TestPathStylesMatchTheSpecTable(t *testing.T) {
	tests := []struct {
		style   string
		explode bool
		v       any
		want    string
	}{
		{"simple", false, stylePrim, "5"},
		{"simple", false, styleArray, "3,4,5"},
		{"simple", false, styleObj, "role,admin,firstName,Alex"},
		{"simple", true, styleObj, "role=admin,firstName=Alex"},
		{"label", false, stylePrim, ".5"},
		{"label", false, styleArray, ".3,4,5"},
		{"label", true, styleArray, ".3.4.5"},
		{"label", false, styleObj, ".role,admin,firstName,Alex"},
		{"label", true, styleObj, ".role=admin.firstName=Alex"},
		{"matrix", false, stylePrim, ";id=5"},
		{"matrix", false, styleArray, ";id=3,4,5"},
		{"matrix", true, styleArray, ";id=3;id=4;id=5"},
		{"matrix", false, styleObj, ";id=role,admin,firstName,Alex"},
		{"matrix", true, styleObj, ";role=admin;firstName=Alex"},
	}
	for _, tt := range tests {
		got, err := expandPath(Param{Name: "id", Style: tt.style, Explode: tt.explode}, tt.v)
		if err != nil || got != tt.want {
			t.Errorf("%s explode=%v %v: got %q, %v; want %q", tt.style, tt.explode, tt.v, got, err, tt.want)
		}
	}
}

func TestQueryStylesMatchTheSpecTable(t *testing.T) {
	tests := []struct {
		style   string
		explode bool
		v       any
		want    string
	}{
		{"form", true, stylePrim, "id=5"},
		{"form", true, styleArray, "id=3&id=4&id=5"},
		{"form", false, styleArray, "id=3,4,5"},
		{"form", true, styleObj, "role=admin&firstName=Alex"},
		{"form", false, styleObj, "id=role,admin,firstName,Alex"},
		{"spaceDelimited", false, styleArray, "id=3%204%205"},
		{"pipeDelimited", false, styleArray, "id=3|4|5"},
		{"deepObject", true, styleObj, "id[role]=admin&id[firstName]=Alex"},
	}
	for _, tt := range tests {
		b := NewBuilder(serverURL(t, "https://x.test"), "GET", "/p")
		b.Query(Param{Name: "id", Style: tt.style, Explode: tt.explode}, tt.v)
		req, err := b.Build(&Operation{ID: "op"})
		if err != nil || req.URL.RawQuery != tt.want {
			t.Errorf("%s explode=%v: got %q, %v; want %q", tt.style, tt.explode, req.URL.RawQuery, err, tt.want)
		}
	}
}

func serverURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := ParseServerURL(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPathValuesAreEscapedAndDotSegmentsRejected(t *testing.T) {
	for _, bad := range []string{"", ".", ".."} {
		_, err := expandPath(Param{Name: "id"}, bad)
		if !errors.Is(err, ErrInvalidParam) {
			t.Errorf("%q: err = %v, want ErrInvalidParam", bad, err)
		}
	}
	var nilID *string
	if _, err := expandPath(Param{Name: "id"}, nilID); err == nil {
		t.Error("a nil path value was accepted")
	}
	b := NewBuilder(serverURL(t, "https://x.test/v1/"), "GET", "/files/{name}/raw")
	b.Path(Param{Name: "name"}, "a/b c?d;e,f%")
	req, err := b.Build(&Operation{ID: "op"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := req.URL.String(), "https://x.test/v1/files/a%2Fb%20c%3Fd%3Be%2Cf%25/raw"; got != want {
		t.Errorf("URL = %s, want %s", got, want)
	}
	if req.URL.Path != "/v1/files/a/b c?d;e,f%/raw" {
		t.Errorf("Path = %q", req.URL.Path)
	}
}

func TestBuildReportsTheFirstErrorAsCallError(t *testing.T) {
	b := NewBuilder(serverURL(t, "https://x.test"), "GET", "/o/{id}")
	b.Path(Param{Name: "id"}, "..")
	b.Query(Param{Name: "q"}, make(chan int))
	_, err := b.Build(&Operation{ID: "getO"})
	var ce *CallError
	if !errors.As(err, &ce) || ce.Operation != "getO" || !errors.Is(err, ErrInvalidParam) || !strings.Contains(err.Error(), `"id"`) {
		t.Fatalf("err = %v, want a CallError for getO about id", err)
	}
	// Nothing was sent, but the error names the intent's key like every
	// failed call: the caller's, or a fresh one.
	if KeyOf(err) == "" || len(AttemptsOf(err)) != 0 {
		t.Fatalf("key %q, %d attempts", KeyOf(err), len(AttemptsOf(err)))
	}
	b = NewBuilder(serverURL(t, "https://x.test"), "POST", "/o/{id}")
	b.Key("k9")
	b.Path(Param{Name: "id"}, "")
	if _, err = b.Build(&Operation{ID: "postO"}); KeyOf(err) != "k9" {
		t.Fatalf("err %v, key %q", err, KeyOf(err))
	}
}

func TestQueryValuesOfEveryKind(t *testing.T) {
	cust := "c 1&2"
	when := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	var absent *int
	b := NewBuilder(serverURL(t, "https://x.test?fixed=1"), "GET", "/p?beta=true")
	b.Query(Param{Name: "status", Explode: true}, []paramStatus{"paid", "new"})
	b.Query(Param{Name: "filter", Style: "deepObject", Explode: true}, paramFilter{Status: "paid", CustomerID: &cust})
	b.Query(Param{Name: "nested", Style: "deepObject", Explode: true}, &paramFilter{Range: &struct {
		From int `json:"from"`
	}{7}})
	b.Query(Param{Name: "at"}, when)
	b.Query(Param{Name: "day"}, Date{2024, 3, 1})
	b.Query(Param{Name: "absent"}, absent)
	b.Query(Param{Name: "empty"}, []string{})
	b.Query(Param{Name: "flag"}, true)
	b.Query(Param{Name: "ratio"}, 0.25)
	b.Query(Param{Name: "raw", AllowReserved: true}, "a/b:c&d")
	b.Query(Param{Name: "js", JSON: true}, map[string]int{"a": 1})
	b.Query(Param{Name: "rawstr"}, json.RawMessage(`"a b"`))
	b.Query(Param{Name: "rawnum"}, json.RawMessage(`12`))
	b.Query(Param{Name: "rawnone"}, json.RawMessage(nil))
	req, err := b.Build(&Operation{ID: "op"})
	if err != nil {
		t.Fatal(err)
	}
	want := "fixed=1&beta=true&status=paid&status=new&filter[status]=paid&filter[customer_id]=c+1%262" +
		"&nested[range][from]=7&at=2024-03-01T12%3A00%3A00Z&day=2024-03-01&flag=true&ratio=0.25&raw=a/b:c%26d&js=%7B%22a%22%3A1%7D&rawstr=a+b&rawnum=12"
	if req.URL.RawQuery != want {
		t.Errorf("query =\n%s\nwant\n%s", req.URL.RawQuery, want)
	}
	if req.URL.Path != "/p" {
		t.Errorf("path = %q, want /p", req.URL.Path)
	}
}

func TestHeaderAndCookieParams(t *testing.T) {
	b := NewBuilder(serverURL(t, "https://x.test"), "GET", "/p")
	b.Header(Param{Name: "If-Match"}, `"v1"`)
	b.Header(Param{Name: "X-List"}, []int{1, 2})
	b.Header(Param{Name: "X-Obj", Explode: true}, map[string]string{"b": "2", "a": "1"})
	var none *string
	b.Header(Param{Name: "X-None"}, none)
	b.Cookie(Param{Name: "session", Explode: true}, "s 1")
	b.Cookie(Param{Name: "ids"}, []string{"a", "b"})
	req, err := b.Build(&Operation{ID: "op"})
	if err != nil {
		t.Fatal(err)
	}
	h := req.Header
	if h.Get("If-Match") != `"v1"` || h.Get("X-List") != "1,2" || h.Get("X-Obj") != "a=1,b=2" || h.Get("X-None") != "" {
		t.Errorf("headers = %v", h)
	}
	if got := h.Get("Cookie"); got != "session=s+1; ids=a,b" {
		t.Errorf("Cookie = %q", got)
	}
}

func TestParseServerURL(t *testing.T) {
	for _, bad := range []string{"", "/v1", "api.example.com", "://x"} {
		if _, err := ParseServerURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	u, err := ParseServerURL("https://api.example.com/v1/")
	if err != nil || u.Path != "/v1" {
		t.Fatalf("got %v, %v", u, err)
	}
}

func FuzzExpandPath(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a/b", "%2e%2e", "ü", "a;b=c", "../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := NewBuilder(&url.URL{Scheme: "https", Host: "x.test", Path: "/v1"}, "GET", "/r/{id}/x")
		b.Path(Param{Name: "id"}, s)
		req, err := b.Build(&Operation{ID: "op"})
		if s == "" || s == "." || s == ".." {
			if err == nil {
				t.Fatalf("%q accepted", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		// The value stays one segment: parsing the URL back yields the
		// template's segments with the value decoded in the middle.
		back, err := url.Parse(req.URL.String())
		if err != nil {
			t.Fatal(err)
		}
		segs := strings.Split(back.EscapedPath(), "/")
		if len(segs) != 5 || segs[1] != "v1" || segs[2] != "r" || segs[4] != "x" {
			t.Fatalf("%q: escaped path %q is not /v1/r/<one segment>/x", s, back.EscapedPath())
		}
		if got, _ := url.PathUnescape(segs[3]); got != s {
			t.Fatalf("%q: segment decodes to %q", s, got)
		}
	})
}

// BenchmarkBuilder is the request-building work of a generated GET method
// with one path parameter: go test -bench Builder -run '^$' ./runtime.
func BenchmarkBuilder(b *testing.B) {
	server, _ := ParseServerURL("https://api.example.com/v1")
	op := &Operation{ID: "getOrder"}
	b.ReportAllocs()
	for b.Loop() {
		bl := NewBuilder(server, "GET", "/orders/{order_id}")
		bl.Path(Param{Name: "order_id"}, "ord_123")
		if _, err := bl.Build(op); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReplacePlaceholder(t *testing.T) {
	for _, tt := range []struct{ path, name, value, want string }{
		{"/a/{id}", "id", "1", "/a/1"},
		{"/a/{id}/b/{id}", "id", "x", "/a/x/b/x"},
		{"/a/{idx}/{id}", "id", "1", "/a/{idx}/1"},
		{"/{id}.json", "id", "", "/.json"},
		{"/plain", "id", "1", "/plain"},
		{"/{unclosed", "id", "1", "/{unclosed"},
		{"{id}", "id", "v", "v"},
	} {
		if got := replacePlaceholder(tt.path, tt.name, tt.value); got != tt.want {
			t.Errorf("replacePlaceholder(%q, %q, %q) = %q, want %q", tt.path, tt.name, tt.value, got, tt.want)
		}
	}
}

func TestBuilderBodies(t *testing.T) {
	server := serverURL(t, "https://x.test")
	op := &Operation{ID: "op"}
	type form struct {
		A string `json:"a"`
		B []int  `json:"b"`
	}
	tests := []struct {
		name   string
		set    func(b *Builder)
		ct     string
		body   string
		prefix bool
	}{
		{"json", func(b *Builder) { b.JSONBody("application/merge-patch+json", form{A: "x"}) }, "application/merge-patch+json", `{"a":"x","b":null}`, false},
		{"form", func(b *Builder) {
			b.FormBody(form{A: "x y", B: []int{1, 2}}, Encoding{Property: "b", Style: "deepObject", Explode: true})
		}, "application/x-www-form-urlencoded", "a=x+y&b%5B0%5D=1&b%5B1%5D=2", false},
		{"text", func(b *Builder) { b.TextBody("text/plain", "hi") }, "text/plain", "hi", false},
		{"reader", func(b *Builder) { b.ReaderBody("application/octet-stream", strings.NewReader("raw")) }, "application/octet-stream", "raw", false},
		{"empty reader", func(b *Builder) { b.ReaderBody("application/octet-stream", nil) }, "application/octet-stream", "", false},
		{"multipart", func(b *Builder) { b.MultipartBody(form{A: "x"}) }, "multipart/form-data; boundary=", "--", true},
	}
	for _, tt := range tests {
		b := NewBuilder(server, "POST", "/p")
		b.Key("k-1")
		tt.set(&b)
		req, err := b.Build(op)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		ct, body := req.Header.Get("Content-Type"), string(req.Body)
		okCT := ct == tt.ct || tt.prefix && strings.HasPrefix(ct, tt.ct)
		okBody := body == tt.body || tt.prefix && strings.HasPrefix(body, tt.body)
		if !okCT || !okBody || req.Body == nil || req.Key != "k-1" || req.Method != "POST" {
			t.Errorf("%s: Content-Type %q body %q key %q", tt.name, ct, body, req.Key)
		}
	}
	b := NewBuilder(server, "POST", "/p")
	b.JSONBody("application/json", make(chan int))
	if _, err := b.Build(op); err == nil || !strings.Contains(err.Error(), "encoding JSON body") {
		t.Errorf("unencodable body: %v", err)
	}
	b = NewBuilder(server, "GET", "/p")
	if req, _ := b.Build(op); req.Body != nil || req.Header != nil {
		t.Errorf("a request without body or headers: body %v header %v", req.Body, req.Header)
	}
}

func TestCookieAndObjectForms(t *testing.T) {
	obj := map[string]string{"b": "2", "a": "1 2"}
	for _, tt := range []struct {
		p    Param
		v    any
		want []string
	}{
		{Param{Name: "c", Explode: true}, obj, []string{"a=1+2", "b=2"}},
		{Param{Name: "c"}, obj, []string{"c=a,1+2,b,2"}},
		{Param{Name: "c", Explode: true}, []string{"x", "y"}, []string{"c=x", "c=y"}},
		{Param{Name: "c"}, (*string)(nil), nil},
	} {
		n, err := toNode(tt.v, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := cookiePairs(tt.p, n); strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
			t.Errorf("%+v %v: got %q, want %q", tt.p, tt.v, got, tt.want)
		}
	}
}

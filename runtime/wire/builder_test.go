package wire

import (
	"encoding/json"
	"errors"
	idemrt "github.com/idemgen/idemgen/runtime"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"
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
		style   Style
		explode bool
		v       any
		want    string
	}{
		{StyleSimple, false, stylePrim, "5"},
		{StyleSimple, false, styleArray, "3,4,5"},
		{StyleSimple, false, styleObj, "role,admin,firstName,Alex"},
		{StyleSimple, true, styleObj, "role=admin,firstName=Alex"},
		{StyleLabel, false, stylePrim, ".5"},
		{StyleLabel, false, styleArray, ".3,4,5"},
		{StyleLabel, true, styleArray, ".3.4.5"},
		{StyleLabel, false, styleObj, ".role,admin,firstName,Alex"},
		{StyleLabel, true, styleObj, ".role=admin.firstName=Alex"},
		{StyleMatrix, false, stylePrim, ";id=5"},
		{StyleMatrix, false, styleArray, ";id=3,4,5"},
		{StyleMatrix, true, styleArray, ";id=3;id=4;id=5"},
		{StyleMatrix, false, styleObj, ";id=role,admin,firstName,Alex"},
		{StyleMatrix, true, styleObj, ";role=admin;firstName=Alex"},
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
		style   Style
		explode bool
		v       any
		want    string
	}{
		{StyleForm, true, stylePrim, "id=5"},
		{StyleForm, true, styleArray, "id=3&id=4&id=5"},
		{StyleForm, false, styleArray, "id=3,4,5"},
		{StyleForm, true, styleObj, "role=admin&firstName=Alex"},
		{StyleForm, false, styleObj, "id=role,admin,firstName,Alex"},
		{StyleSpaceDelimited, false, styleArray, "id=3%204%205"},
		{StylePipeDelimited, false, styleArray, "id=3|4|5"},
		{StyleDeepObject, true, styleObj, "id[role]=admin&id[firstName]=Alex"},
	}
	for _, tt := range tests {
		b := NewBuilder(serverURL(t, "https://x.test"), "GET", "/p")
		b.Query(Param{Name: "id", Style: tt.style, Explode: tt.explode}, tt.v)
		req, err := b.Build()
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
		_, err := expandPath(Param{Name: "id", Style: StyleSimple}, bad)
		if !errors.Is(err, ErrInvalidParam) {
			t.Errorf("%q: err = %v, want ErrInvalidParam", bad, err)
		}
	}
	var nilID *string
	if _, err := expandPath(Param{Name: "id", Style: StyleSimple}, nilID); err == nil {
		t.Error("a nil path value was accepted")
	}
	b := NewBuilder(serverURL(t, "https://x.test/v1/"), "GET", "/files/{name}/raw")
	b.Path(Param{Name: "name", Style: StyleSimple}, "a/b c?d;e,f%")
	req, err := b.Build()
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

func TestBuildReportsTheFirstError(t *testing.T) {
	b := NewBuilder(serverURL(t, "https://x.test"), "GET", "/o/{id}")
	b.Path(Param{Name: "id", Style: StyleSimple}, "..")
	b.Query(Param{Name: "q", Style: StyleForm}, make(chan int))
	req, err := b.Build()
	if req != nil || !errors.Is(err, ErrInvalidParam) || !strings.Contains(err.Error(), `"id"`) {
		t.Fatalf("req %v, err = %v, want ErrInvalidParam about id", req, err)
	}
}

func TestQueryValuesOfEveryKind(t *testing.T) {
	cust := "c 1&2"
	when := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	var absent *int
	b := NewBuilder(serverURL(t, "https://x.test?fixed=1"), "GET", "/p?beta=true")
	b.Query(Param{Name: "status", Style: StyleForm, Explode: true}, []paramStatus{"paid", "new"})
	b.Query(Param{Name: "filter", Style: StyleDeepObject, Explode: true}, paramFilter{Status: "paid", CustomerID: &cust})
	b.Query(Param{Name: "nested", Style: StyleDeepObject, Explode: true}, &paramFilter{Range: &struct {
		From int `json:"from"`
	}{7}})
	b.Query(Param{Name: "at", Style: StyleForm}, when)
	b.Query(Param{Name: "day", Style: StyleForm}, idemrt.Date{Year: 2024, Month: 3, Day: 1})
	b.Query(Param{Name: "absent", Style: StyleForm}, absent)
	b.Query(Param{Name: "empty", Style: StyleForm}, []string{})
	b.Query(Param{Name: "flag", Style: StyleForm}, true)
	b.Query(Param{Name: "ratio", Style: StyleForm}, 0.25)
	b.Query(Param{Name: "raw", Style: StyleForm, AllowReserved: true}, "a/b:c&d")
	b.Query(Param{Name: "js", Style: StyleForm, JSON: true}, map[string]int{"a": 1})
	b.Query(Param{Name: "rawstr", Style: StyleForm}, json.RawMessage(`"a b"`))
	b.Query(Param{Name: "rawnum", Style: StyleForm}, json.RawMessage(`12`))
	b.Query(Param{Name: "rawnone", Style: StyleForm}, json.RawMessage(nil))
	req, err := b.Build()
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
	b.Header(Param{Name: "If-Match", Style: StyleSimple}, `"v1"`)
	b.Header(Param{Name: "X-List", Style: StyleSimple}, []int{1, 2})
	b.Header(Param{Name: "X-Obj", Style: StyleSimple, Explode: true}, map[string]string{"b": "2", "a": "1"})
	var none *string
	b.Header(Param{Name: "X-None", Style: StyleSimple}, none)
	b.Cookie(Param{Name: "session", Style: StyleForm, Explode: true}, "s 1")
	b.Cookie(Param{Name: "ids", Style: StyleForm}, []string{"a", "b"})
	req, err := b.Build()
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
		b.Path(Param{Name: "id", Style: StyleSimple}, s)
		req, err := b.Build()
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
// with one path parameter: go test -bench Builder -run '^$' ./runtime/wire.
func BenchmarkBuilder(b *testing.B) {
	server, _ := ParseServerURL("https://api.example.com/v1")
	b.ReportAllocs()
	for b.Loop() {
		bl := NewBuilder(server, "GET", "/orders/{order_id}")
		bl.Path(Param{Name: "order_id", Style: StyleSimple}, "ord_123")
		if _, err := bl.Build(); err != nil {
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
			b.FormBody(form{A: "x y", B: []int{1, 2}}, Encoding{Property: "b", Style: StyleDeepObject, Explode: true})
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
		req, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		ct, body := req.Header.Get("Content-Type"), string(req.Body)
		for _, p := range req.Stream {
			b, _ := io.ReadAll(p.Reader)
			body += string(p.Bytes) + string(b)
		}
		okCT := ct == tt.ct || tt.prefix && strings.HasPrefix(ct, tt.ct)
		okBody := body == tt.body || tt.prefix && strings.HasPrefix(body, tt.body)
		if !okCT || !okBody || (req.Body == nil && req.Stream == nil) || req.Key != "k-1" || req.Method != "POST" {
			t.Errorf("%s: Content-Type %q body %q key %q", tt.name, ct, body, req.Key)
		}
	}
	b := NewBuilder(server, "POST", "/p")
	b.JSONBody("application/json", make(chan int))
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "encoding JSON body") {
		t.Errorf("unencodable body: %v", err)
	}
	b = NewBuilder(server, "GET", "/p")
	if req, _ := b.Build(); req.Body != nil || req.Header != nil {
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
		{Param{Name: "c", Style: StyleForm, Explode: true}, obj, []string{"a=1+2", "b=2"}},
		{Param{Name: "c", Style: StyleForm}, obj, []string{"c=a,1+2,b,2"}},
		{Param{Name: "c", Style: StyleForm, Explode: true}, []string{"x", "y"}, []string{"c=x", "c=y"}},
		{Param{Name: "c", Style: StyleForm}, (*string)(nil), nil},
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

// TestStyleNotAllowedInItsLocationIsAnError: the codec has no default style
// (the parser decided it), so a missing style, or one the location does not
// allow, fails the build before anything is sent.
func TestStyleNotAllowedInItsLocationIsAnError(t *testing.T) {
	for name, set := range map[string]func(b *Builder){
		"path without style":  func(b *Builder) { b.Path(Param{Name: "id"}, "1") },
		"path form":           func(b *Builder) { b.Path(Param{Name: "id", Style: StyleForm}, "1") },
		"query without style": func(b *Builder) { b.Query(Param{Name: "q"}, "1") },
		"query matrix":        func(b *Builder) { b.Query(Param{Name: "q", Style: StyleMatrix}, "1") },
		"header form":         func(b *Builder) { b.Header(Param{Name: "h", Style: StyleForm}, "1") },
		"cookie simple":       func(b *Builder) { b.Cookie(Param{Name: "c", Style: StyleSimple}, "1") },
	} {
		b := NewBuilder(serverURL(t, "https://x.test"), "GET", "/o/{id}")
		set(&b)
		if _, err := b.Build(); !errors.Is(err, ErrInvalidParam) || !strings.Contains(err.Error(), "style") {
			t.Errorf("%s: err = %v, want ErrInvalidParam about the style", name, err)
		}
	}
	for s := StyleSimple; s <= StylePipeDelimited; s++ {
		if s.String() == "" {
			t.Errorf("Style %d has no name", s)
		}
	}
}

// TestQueryDeepObjectListsAndUnsetJSON pins conformance findings: every list
// inside a deepObject, and a deepObject list itself, is indexed (Stripe's
// customer_details[tax_ids][0][type] and expand[0]=a; Stripe and kin-openapi
// refuse a repeated key there), and an unset JSON-content parameter
// (a nil map) is absent, not q=null (Apache Superset).
func TestQueryDeepObjectListsAndUnsetJSON(t *testing.T) {
	type taxID struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	}
	type details struct {
		TaxIDs []taxID  `json:"tax_ids"`
		Tags   []string `json:"tags"`
		Grid   [][]int  `json:"grid"`
		Next   *details `json:"next,omitempty"`
	}
	b := NewBuilder(serverURL(t, "https://x.test"), "GET", "/p")
	b.Query(Param{Name: "d", Style: StyleDeepObject, Explode: true}, details{
		TaxIDs: []taxID{{"eu_vat", "1"}, {"us_ein", "2"}},
		Tags:   []string{"a", "b"},
		Grid:   [][]int{{1}, {2, 3}},
		Next:   &details{TaxIDs: []taxID{{"x", "y"}}},
	})
	b.Query(Param{Name: "lines", Style: StyleDeepObject, Explode: true}, []taxID{{"a", "b"}})
	b.Query(Param{Name: "expand", Style: StyleDeepObject, Explode: true}, []string{"data.customer", "data.invoice"})
	var unset map[string]any
	b.Query(Param{Name: "q", Style: StyleForm, Explode: true, JSON: true}, unset)
	req, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := url.QueryUnescape(req.URL.RawQuery)
	want := "d[tax_ids][0][type]=eu_vat&d[tax_ids][0][value]=1&d[tax_ids][1][type]=us_ein&d[tax_ids][1][value]=2" +
		"&d[tags][0]=a&d[tags][1]=b&d[grid][0][0]=1&d[grid][1][0]=2&d[grid][1][1]=3" +
		"&d[next][tax_ids][0][type]=x&d[next][tax_ids][0][value]=y&lines[0][type]=a&lines[0][value]=b" +
		"&expand[0]=data.customer&expand[1]=data.invoice"
	if got != want {
		t.Errorf("query =\n%s\nwant\n%s", got, want)
	}
}

// TestLookupKeyRefusesAnEmptyReference: LookupKey makes a client reference
// the call's key, and an empty one fails the build with ErrEmptyLookupKey
// (the same value as idemrt's), naming the member: nothing is sent.
func TestLookupKeyRefusesAnEmptyReference(t *testing.T) {
	server, _ := ParseServerURL("https://api.example.com")
	b := NewBuilder(server, "POST", "/refunds")
	b.LookupKey("reference", "ref-9")
	if req, err := b.Build(); err != nil || req.Key != "ref-9" {
		t.Fatalf("Build = %+v, %v; want the key ref-9", req, err)
	}
	b = NewBuilder(server, "POST", "/refunds")
	b.LookupKey("reference", "")
	req, err := b.Build()
	if req != nil || !errors.Is(err, ErrEmptyLookupKey) || !errors.Is(err, idemrt.ErrEmptyLookupKey) || !strings.Contains(err.Error(), `"reference"`) {
		t.Fatalf("Build with an empty reference = %v, %v; want ErrEmptyLookupKey naming the member", req, err)
	}
}

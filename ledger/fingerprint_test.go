package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{" {\n \"z\" : [ 3 , {\"y\":null,\"x\":true} ] ,\"a\":\"s\" } ", `{"a":"s","z":[3,{"x":true,"y":null}]}`},
		{`{"n":1.50,"m":1e3,"big":12345678901234567890}`, `{"big":12345678901234567890,"m":1e3,"n":1.50}`},
		{`"<a&b>"`, `"<a&b>"`},
		{`{"é":"\u00e9","a":"\n"}`, `{"a":"\n","é":"é"}`},
		{`[]`, `[]`},
	}
	for _, tc := range tests {
		got, err := CanonicalJSON([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("CanonicalJSON(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1} {"b":2}`, `{"a":1}x`, `nul`} {
		if _, err := CanonicalJSON([]byte(bad)); err == nil {
			t.Errorf("CanonicalJSON(%q) accepted invalid input", bad)
		}
	}
}

func TestFingerprint(t *testing.T) {
	base := Fingerprint("POST", "createOrder", "/orders", "application/json", []byte(`{"a":1,"b":[1,2]}`))
	same := []struct{ method, op, target, ct, body string }{
		{"POST", "createOrder", "/orders", "application/json; charset=utf-8", `{ "b":[1,2], "a":1 }`},
		{"POST", "createOrder", "/orders", "", `{"b":[1,2],"a":1}`},
	}
	for _, s := range same {
		if got := Fingerprint(s.method, s.op, s.target, s.ct, []byte(s.body)); got != base {
			t.Errorf("Fingerprint(%+v) differs from an equal payload", s)
		}
	}
	differ := []struct{ method, op, target, ct, body string }{
		{"PUT", "createOrder", "/orders", "application/json", `{"a":1,"b":[1,2]}`},
		{"POST", "createPayment", "/orders", "application/json", `{"a":1,"b":[1,2]}`},
		{"POST", "createOrder", "/orders/B", "application/json", `{"a":1,"b":[1,2]}`},
		{"POST", "createOrder", "/orders?dry_run=true", "application/json", `{"a":1,"b":[1,2]}`},
		{"POST", "createOrder", "/orders", "application/json", `{"a":1,"b":[2,1]}`},
		{"POST", "createOrder", "/orders", "application/json", `{"a":1.0,"b":[1,2]}`},
		{"POST", "createOrder", "/orders", "text/plain", `{"a":1,"b":[1,2]}`},
	}
	for _, d := range differ {
		if got := Fingerprint(d.method, d.op, d.target, d.ct, []byte(d.body)); got == base {
			t.Errorf("Fingerprint(%+v) collides with another request", d)
		}
	}
	// Non-JSON bodies are hashed raw: whitespace matters there.
	if Fingerprint("POST", "up", "/u", "text/plain", []byte("a b")) == Fingerprint("POST", "up", "/u", "text/plain", []byte("a  b")) {
		t.Error("raw bodies that differ share a fingerprint")
	}
	// Field boundaries are length-prefixed.
	if Fingerprint("POS", "TcreateOrder", "/o", "", nil) == Fingerprint("POST", "createOrder", "/o", "", nil) {
		t.Error("method and operation boundaries collide")
	}
	// Invalid JSON under a JSON type falls back to the raw bytes.
	if Fingerprint("POST", "o", "/o", "application/json", []byte("{x")) == Fingerprint("POST", "o", "/o", "application/json", []byte("{y")) {
		t.Error("two invalid JSON bodies share a fingerprint")
	}
}

// TestRequestTarget: the query is the bytes as sent, never decoded and
// encoded again: tags=a%2Cb (one tag "a,b") and tags=a,b (two tags) are two
// requests, and so are two orders of the same parameters (documented: a
// generated client sends the same bytes on every attempt). Path values and
// query values count too.
func TestRequestTarget(t *testing.T) {
	target := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return RequestTarget(u)
	}
	if a, b := target("/orders/A/pay?x=1&y=2"), target("/orders/A/pay?x=1&y=2"); a != b {
		t.Errorf("the same target differs: %q vs %q", a, b)
	}
	base := "/orders/A/pay?x=1&y=2"
	for _, other := range []string{"/orders/B/pay?x=1&y=2", "/orders/A/pay?x=1&y=3", "/orders/A%2F/pay?x=1&y=2",
		"/orders/A/pay?y=2&x=1", "/orders/A/pay?x=%31&y=2", "/orders/A/pay?x=1&y=2&", "/orders/A/pay"} {
		if target(other) == target(base) {
			t.Errorf("%s has the same target as %s", other, base)
		}
	}
	for _, pair := range [][2]string{
		{"/items?tags=a%2Cb", "/items?tags=a,b"},
		{"/items?q=a+b", "/items?q=a%20b"},
		{"/items?q=a%26b=c", "/items?q=a&b=c"},
	} {
		if target(pair[0]) == target(pair[1]) {
			t.Errorf("%s and %s have the same target %q", pair[0], pair[1], target(pair[0]))
		}
	}
}

// TestRequestTargetWithoutCredentials: a credential's query pairs leave the
// target, by their name as net/http decodes it (so api%5Fkey too, and both
// pairs when it is sent twice); every other pair keeps its bytes and its
// order; a pair net/http does not read (one with a semicolon) stays.
func TestRequestTargetWithoutCredentials(t *testing.T) {
	omit := []string{"api_key"}
	for _, tc := range []struct{ raw, want string }{
		{"/items?api_key=k1", "/items"},
		{"/items?shelf=a&api_key=k1&tags=x%2Cy", "/items?shelf=a&tags=x%2Cy"},
		{"/items?api%5Fkey=k1&shelf=a", "/items?shelf=a"},
		{"/items?api_key=k1&api_key=k2&shelf=a", "/items?shelf=a"},
		{"/items?&shelf=a&api_key", "/items?&shelf=a"},
		{"/items?api_key=k1;shelf=a", "/items?api_key=k1;shelf=a"},
		{"/items?API_KEY=k1&shelf=a", "/items?API_KEY=k1&shelf=a"},
		{"/items?shelf=a", "/items?shelf=a"},
	} {
		u, err := url.Parse(tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := requestTarget(u, omit); got != tc.want {
			t.Errorf("%s: target %q, want %q", tc.raw, got, tc.want)
		}
		if got := requestTarget(u, nil); got != RequestTarget(u) {
			t.Errorf("%s: with nothing to omit %q, RequestTarget %q", tc.raw, got, RequestTarget(u))
		}
	}
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `[1,2.5e-3]`, `"\ud83d\ude00"`, `{}`,
		`{"a":1,"A":2}`, `"\ud800\\u"`, "\"\xff\"", `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// CheckJSON takes any bytes; an accepted body canonicalises.
		if CheckJSON(in) == nil && json.Valid(in) {
			if _, err := CanonicalJSON(in); err != nil {
				t.Fatalf("CheckJSON accepted %q, which does not canonicalise: %v", in, err)
			}
		}
		c1, err := CanonicalJSON(in)
		if err != nil {
			return
		}
		// Canonical form is a fixed point.
		c2, err := CanonicalJSON(c1)
		if err != nil || string(c1) != string(c2) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, c1, c2, err)
		}
	})
}

func TestParseKey(t *testing.T) {
	ok := map[string]string{"abc": "abc", `"abc"`: "abc", " k-1 ": "k-1"}
	for in, want := range ok {
		if got, valid := ParseKey([]string{in}); !valid || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", in, got, valid, want)
		}
	}
	for _, in := range [][]string{{""}, {`""`}, {"a b"}, {"a", "b"}, {"é"}, {string(make([]byte, 256))}} {
		if _, valid := ParseKey(in); valid {
			t.Errorf("ParseKey(%q) accepted an invalid key", in)
		}
	}
	if k, valid := ParseKey(nil); !valid || k != "" {
		t.Errorf("absent header = %q, %v; want \"\", true", k, valid)
	}
}

// TestCheckJSONRefusesAmbiguity: bodies that canonicalise alike but decode
// differently (a and b share a fingerprint) are refused.
func TestCheckJSONRefusesAmbiguity(t *testing.T) {
	a, b := `{"AMOUNT":1000,"amount":1}`, `{"amount":1,"AMOUNT":1000}`
	for _, bad := range []string{
		a, b, `{"a":1,"a":1}`, `{"x":{"y":[{"k":1,"\u212a":2}]}}`, `{"s":1,"ſ":2}`,
		"\"\xff\"", "{\"\xfe\":1}", `"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `{"a":"\uDBFF"}`,
	} {
		if err := CheckJSON([]byte(bad)); !errors.Is(err, ErrAmbiguousBody) {
			t.Errorf("CheckJSON(%q) = %v, want ErrAmbiguousBody", bad, err)
		}
	}
	for _, ok := range []string{
		`{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, `"\ud83d\ude00"`, `"\\ud800"`, `{"é":1,"e":2}`,
		"not json \xff", `{"a":1,"A":`, ``, `[]`, `{"Ω":1,"ω2":2}`,
	} {
		if err := CheckJSON([]byte(ok)); err != nil {
			t.Errorf("CheckJSON(%q) = %v, want nil", ok, err)
		}
	}
}

func TestHeaderFields(t *testing.T) {
	fp := func(h http.Header) string {
		return Fingerprint("POST", "o", "/o", "", nil, HeaderFields(h, []string{"X-Account"})...)
	}
	seen := map[string]string{}
	for name, h := range map[string]http.Header{
		"absent": {}, "empty": {"X-Account": {""}}, "A": {"X-Account": {"A"}}, "B": {"X-Account": {"B"}},
		"A,B": {"X-Account": {"A,B"}}, "A then B": {"X-Account": {"A", "B"}},
	} {
		if other, dup := seen[fp(h)]; dup {
			t.Errorf("%s and %s share a fingerprint", name, other)
		}
		seen[fp(h)] = name
	}
	if Fingerprint("POST", "o", "/o", "", nil, HeaderFields(nil, nil)...) != Fingerprint("POST", "o", "/o", "", nil) {
		t.Error("no fingerprint headers changed the fingerprint")
	}
}

// TestFingerprintMultipartBoundaryInContent: the boundary string inside a
// file's content is content. Splitting the bytes at "--"+boundary made the
// upload of "foo--Xbar" under boundary X and of "foo--Ybar" under Y hash
// alike: two different files, one fingerprint, and the second got the
// first one's stored result.
func TestFingerprintMultipartBoundaryInContent(t *testing.T) {
	fp := func(ct string, body []byte) string { return Fingerprint("POST", "upload", "/files", ct, body) }
	ctX, bX := multipartBody(t, "XXXXXXXXXX", "avatar", "foo--XXXXXXXXXXbar")
	ctY, bY := multipartBody(t, "YYYYYYYYYY", "avatar", "foo--YYYYYYYYYYbar")
	if fp(ctX, bX) == fp(ctY, bY) {
		t.Error("two uploads with other file contents share a fingerprint")
	}
	// The same content under two boundaries is still one request.
	ctZ, bZ := multipartBody(t, "ZZZZZZZZZZ", "avatar", "foo--XXXXXXXXXXbar")
	if fp(ctX, bX) != fp(ctZ, bZ) {
		t.Error("the same parts under two boundaries fingerprint differently")
	}
	// A body that does not parse (no closing delimiter) is hashed raw.
	cut := bX[:bytes.LastIndex(bX, []byte("--XXXXXXXXXX--"))]
	if fp(ctX, cut) != Fingerprint("POST", "upload", "/files", "application/octet-stream", cut) {
		t.Error("a truncated multipart body is not hashed raw")
	}
}

// multipartBody writes one field and one file part under boundary.
func multipartBody(t *testing.T, boundary, field, file string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(boundary); err != nil {
		t.Fatal(err)
	}
	w.WriteField("purpose", field)
	fw, _ := w.CreateFormFile("file", "a.txt")
	io.WriteString(fw, file)
	w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

// TestFingerprintMultipartIgnoresTheBoundary: a client picks a new random
// boundary for each body it builds, so the same parts resent under the
// same key (by a new process, after an unknown outcome) fingerprint the
// same; other parts do not.
func TestFingerprintMultipartIgnoresTheBoundary(t *testing.T) {
	fp := func(ct string, body []byte) string { return Fingerprint("POST", "upload", "/files", ct, body) }
	ct1, b1 := multipartBody(t, "b1b1b1b1b1", "avatar", "bytes of the file")
	ct2, b2 := multipartBody(t, "0123456789abcdef", "avatar", "bytes of the file")
	ct3, b3 := multipartBody(t, "b1b1b1b1b1", "avatar", "other bytes")
	if fp(ct1, b1) != fp(ct2, b2) {
		t.Error("the same parts under two boundaries fingerprint differently")
	}
	if fp(ct1, b1) == fp(ct3, b3) {
		t.Error("other file bytes fingerprint the same")
	}
	// A part whose content holds the other body's delimiter is not the
	// same request.
	ct4, b4 := multipartBody(t, "xyxyxyxyxy", "avatar", "x\r\n--b1b1b1b1b1\r\ny")
	if fp(ct4, b4) == fp(ct1, b1) {
		t.Error("a delimiter inside a part collided")
	}
	// A part's headers count as parsed: quoting a name changes nothing,
	// another file name or part type does.
	quoted := bytes.Replace(b1, []byte(`name="purpose"`), []byte(`name=purpose`), 1)
	if fp(ct1, quoted) != fp(ct1, b1) {
		t.Error(`name="purpose" and name=purpose fingerprint differently`)
	}
	for _, other := range [][]byte{
		bytes.Replace(b1, []byte(`filename="a.txt"`), []byte(`filename="b.txt"`), 1),
		bytes.Replace(b1, []byte("application/octet-stream"), []byte("text/plain"), 1),
	} {
		if fp(ct1, other) == fp(ct1, b1) {
			t.Errorf("a part with other headers fingerprints the same:\n%s", other)
		}
	}
	if fp("multipart/form-data", b1) != Fingerprint("POST", "upload", "/files", "application/octet-stream", b1) {
		t.Error("a multipart body without a boundary is not hashed raw")
	}
}

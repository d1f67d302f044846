package wire

import (
	"net/url"
	"testing"
)

// TestSetEscapedPathKeepsTheRequestURI checks that a path stored without
// RawPath writes the same request line as the RawPath form it replaces,
// and that every byte plainPath accepts is one url.URL leaves unescaped.
func TestSetEscapedPathKeepsTheRequestURI(t *testing.T) {
	for c := 0; c < 256; c++ {
		s := "/a" + string([]byte{byte(c)})
		u := url.URL{Path: s}
		if plainPathByte[c] && u.EscapedPath() != s {
			t.Errorf("byte %#x is plain, but EscapedPath escapes it: %q", c, u.EscapedPath())
		}
	}
	for _, raw := range []string{
		"/orders/ord_7f3a9c", "/v1/things/a,b;c=d:e@f$g&h+i~j", "/a%2Fb/c", "/caf%C3%A9", "/odata('x')",
		"/a b", "/with%25percent", "", "/", "*", "/x?y",
	} {
		var got url.URL
		if err := setEscapedPath(&got, raw); err != nil {
			t.Fatalf("setEscapedPath(%q): %v", raw, err)
		}
		want := url.URL{RawPath: raw}
		p, err := url.PathUnescape(raw)
		if err != nil {
			t.Fatal(err)
		}
		want.Path = p
		if got.Path != want.Path || got.RequestURI() != want.RequestURI() || got.EscapedPath() != want.EscapedPath() {
			t.Errorf("%q: Path %q, RequestURI %q, EscapedPath %q; want %q, %q, %q", raw, got.Path, got.RequestURI(), got.EscapedPath(),
				want.Path, want.RequestURI(), want.EscapedPath())
		}
		if plainPath(raw) && got.RawPath != "" {
			t.Errorf("%q: RawPath %q, want none", raw, got.RawPath)
		}
	}
	var u url.URL
	if err := setEscapedPath(&u, "/bad%zz"); err == nil {
		t.Error("an invalid escape was accepted")
	}
}

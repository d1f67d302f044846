package idemsrv

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCallerScopes: one principal's credentials always give one scope, two
// principals two; an API key travels in the header, query or cookie its
// scheme names; no credentials is 401 unless the operation allows anonymous
// callers, who share one scope.
func TestCallerScopes(t *testing.T) {
	rt := Route{Credentials: []Credential{{In: InHeader, Name: "Authorization"}, {In: InQuery, Name: "api_key"}, {In: InCookie, Name: "sid"}}}
	req := func(mod func(*http.Request)) *http.Request {
		r := httptest.NewRequest("POST", "/x?other=1", nil)
		mod(r)
		return r
	}
	bearerA := func(r *http.Request) { r.Header.Set("Authorization", "Bearer a") }
	scope := func(r *http.Request) string {
		s, err := rt.caller(r)
		if err != nil {
			t.Fatalf("caller: %v", err)
		}
		return s
	}
	a1, a2 := scope(req(bearerA)), scope(req(bearerA))
	b := scope(req(func(r *http.Request) { r.Header.Set("Authorization", "Bearer b") }))
	q := scope(req(func(r *http.Request) { r.URL.RawQuery = "api_key=a" }))
	c := scope(req(func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "sid", Value: "a"}) }))
	if a1 != a2 || a1 == b || q == a1 || c == q || c == a1 {
		t.Errorf("scopes a %q %q, b %q, query %q, cookie %q", a1, a2, b, q, c)
	}
	if _, err := rt.caller(req(func(*http.Request) {})); err == nil {
		t.Error("no credentials: no error")
	}
	rt.Anonymous = true
	if s := scope(req(func(*http.Request) {})); s != anonymous {
		t.Errorf("anonymous scope %q", s)
	}
	if s := scope(req(bearerA)); s != a1 {
		t.Errorf("credentials on an anonymous-allowed operation: %q, want %q", s, a1)
	}
}

package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
)

func TestResolve(t *testing.T) {
	server, _ := url.Parse("https://api.example.com/v1")
	for ref, want := range map[string]string{
		"https://auth.example.com/token": "https://auth.example.com/token",
		"/oauth/token":                   "https://api.example.com/oauth/token",
		"oauth/token":                    "https://api.example.com/oauth/token",
		"token?x=1":                      "https://api.example.com/token?x=1",
		"//auth.example.com/t":           "https://auth.example.com/t",
	} {
		if got, err := resolve(ref, server); err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	for _, ref := range []string{"file:///etc/passwd", "javascript:alert(1)", "https://user:pw@auth.example.com/t",
		"https:///t", "https://auth.example.com/t#frag", "ftp://auth.example.com/t", "%zz"} {
		if got, err := resolve(ref, server); err == nil {
			t.Errorf("resolve(%q) = %q, want an error", ref, got)
		}
	}
	if _, err := resolve("/token", nil); err == nil {
		t.Error("a relative token URL without a server resolved")
	}
}

// TestTokenEndpointRedirectIsRefused: the client secret goes to the token
// URL's host only: a token endpoint's redirect (307, which would resend
// the body too) is not followed, the call fails as unauthorized and
// nothing reaches the API.
func TestTokenEndpointRedirectIsRefused(t *testing.T) {
	var elsewhere, api atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer tokens.Close()
	apiSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { api.Add(1) }))
	defer apiSrv.Close()
	r := idemrt.NewRunner(ClientCredentials("cc", Config{TokenURL: tokens.URL + "/token", ClientID: "id", ClientSecret: "secret"}))
	op := &idemrt.Operation{ID: "get", Method: "GET", Path: "/x", Safety: idemrt.Idempotent, Security: []string{"cc"}}
	u, _ := url.Parse(apiSrv.URL + "/x")
	_, err := r.Do(context.Background(), op, &idemrt.Request{Method: "GET", URL: u})
	var te *TokenError
	if !errors.Is(err, idemrt.ErrUnauthorized) || !errors.Is(err, ErrTokenEndpoint) || !errors.As(err, &te) || !errors.Is(err, errRedirect) {
		t.Fatalf("err %v, want a TokenError for the refused redirect", err)
	}
	if elsewhere.Load() != 0 || api.Load() != 0 {
		t.Fatalf("%d requests followed the redirect, %d reached the API; want 0 and 0", elsewhere.Load(), api.Load())
	}
}

// TestRelativeTokenURLFollowsTheCallsServer: a relative token URL is asked
// on the server the call goes to, WithBaseURL's included.
func TestRelativeTokenURLFollowsTheCallsServer(t *testing.T) {
	var asked []string
	mux := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/oauth/token" {
				asked = append(asked, name)
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"access_token":"tok-` + name + `","token_type":"bearer"}`))
				return
			}
			if r.Header.Get("Authorization") != "Bearer tok-"+name {
				w.WriteHeader(http.StatusUnauthorized)
			}
		})
	}
	a, b := httptest.NewServer(mux("a")), httptest.NewServer(mux("b"))
	defer a.Close()
	defer b.Close()
	r := idemrt.NewRunner(ClientCredentials("cc", Config{TokenURL: "/oauth/token", ClientID: "id", ClientSecret: "s"}))
	op := &idemrt.Operation{ID: "get", Method: "GET", Path: "/x", Safety: idemrt.Idempotent, Security: []string{"cc"}}
	server, _ := url.Parse(a.URL + "/v1")
	u, _ := url.Parse(a.URL + "/v1/x")
	for _, opts := range [][]idemrt.CallOption{nil, {idemrt.WithBaseURL(b.URL + "/v1")}, nil} {
		if _, err := r.Do(context.Background(), op, &idemrt.Request{Method: "GET", URL: u, Server: server}, opts...); err != nil {
			t.Fatal(err)
		}
	}
	if len(asked) != 2 || asked[0] != "a" || asked[1] != "b" {
		t.Fatalf("token endpoints asked %q, want [a b] (the third call reuses a's token)", asked)
	}
}

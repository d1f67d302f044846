package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestRefusedCredentialNamesTheRefusedAttempts: in the resend after a 401,
// a source learns which of its credentials the server refused (so that a
// cache drops exactly those), and outside a refresh it learns nothing.
func TestRefusedCredentialNamesTheRefusedAttempts(t *testing.T) {
	var answers atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if answers.Add(1) == 1 {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var calls atomic.Int32
	var refused []string
	src := func(ctx context.Context) (string, error) {
		refused = append(refused, RefusedCredential(ctx, "header")+"|"+RefusedCredential(ctx, "other"))
		if calls.Add(1) == 1 {
			return "first", nil
		}
		return "second", nil
	}
	r, _ := loopRunner(t, quickPolicy(), WithCredentialSource("header", src, func(r *http.Request, c string) { r.Header.Set("X-Token", c) }))
	op := idempotentOp
	op.Security = []string{"header"}
	if _, err := r.Do(context.Background(), &op, &Request{Method: "PUT", URL: mustURL(t, srv.URL+"/x"), Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if len(refused) != 2 || refused[0] != "|" || refused[1] != "first|" {
		t.Fatalf("RefusedCredential per attempt %q, want [\"|\" \"first|\"]", refused)
	}
	if RefusedCredential(context.Background(), "header") != "" {
		t.Fatal("RefusedCredential outside a call is not empty")
	}
}

// TestServerAndTransportOfACall: a source learns the server the call goes
// to (WithBaseURL's when given) and the Runner's transport.
func TestServerAndTransportOfACall(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	var servers []string
	var transports []http.RoundTripper
	src := func(ctx context.Context) (string, error) {
		servers = append(servers, ServerOf(ctx).String())
		transports = append(transports, TransportOf(ctx))
		return "t", nil
	}
	r, tr := loopRunner(t, quickPolicy(), WithCredentialSource("s", src, func(r *http.Request, c string) {}))
	op := idempotentOp
	op.Security = []string{"s"}
	server := mustURL(t, srv.URL+"/v1")
	for _, opts := range [][]CallOption{nil, {WithBaseURL(srv.URL + "/v2/")}} {
		req := &Request{Method: "PUT", URL: mustURL(t, srv.URL+"/v1/x"), Server: server}
		if _, err := r.Do(context.Background(), &op, req, opts...); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{srv.URL + "/v1", srv.URL + "/v2"}; len(servers) != 2 || servers[0] != want[0] || servers[1] != want[1] {
		t.Fatalf("ServerOf %q, want %q", servers, want)
	}
	if transports[0] != http.RoundTripper(tr) || transports[1] != http.RoundTripper(tr) {
		t.Fatalf("TransportOf %v, want the client's transport", transports)
	}
	if ServerOf(context.Background()) != nil || TransportOf(context.Background()) != nil {
		t.Fatal("outside a call: want nil")
	}
}

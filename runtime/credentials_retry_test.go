package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRetriesCarryEachCredentialOnce: every attempt of a call starts from
// the request as it was before the editors ran, so a source that adds (a
// cookie, a repeated query parameter, a header value) adds once per
// request, and after a 401 the refreshed credential replaces the stale one
// instead of following it.
func TestRetriesCarryEachCredentialOnce(t *testing.T) {
	var mu sync.Mutex
	var seen []*http.Request
	var answers atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Clone(context.Background()))
		mu.Unlock()
		switch answers.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusUnauthorized)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	// Each source answers stale twice (the first send and the retry after
	// the 503), then fresh (the refresh after the 401).
	tok := func() func(context.Context) (string, error) {
		var calls atomic.Int32
		return func(context.Context) (string, error) {
			if calls.Add(1) < 3 {
				return "stale", nil
			}
			return "fresh", nil
		}
	}
	r, _ := loopRunner(t, quickPolicy(),
		WithCredentialSource("cookie", tok(), func(r *http.Request, c string) { r.AddCookie(&http.Cookie{Name: "session", Value: c}) }),
		WithCredentialSource("query", tok(), func(r *http.Request, c string) {
			q := r.URL.Query()
			q.Add("token", c)
			r.URL.RawQuery = q.Encode()
		}),
		WithCredentialSource("header", tok(), func(r *http.Request, c string) { r.Header.Add("X-Token", c) }),
	)
	op := idempotentOp
	op.Security = []string{"cookie", "query", "header"}
	h := http.Header{"Cookie": {"theme=dark"}}
	if _, err := r.Do(context.Background(), &op, &Request{Method: "PUT", URL: mustURL(t, srv.URL+"/x?a=1"), Header: h, Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 {
		t.Fatalf("%d requests, want 3 (503, 401, 200)", len(seen))
	}
	want := []string{"stale", "stale", "fresh"}
	for i, req := range seen {
		var cookies []string
		for _, c := range req.Cookies() {
			cookies = append(cookies, c.Name+"="+c.Value)
		}
		if wc := []string{"theme=dark", "session=" + want[i]}; !slices.Equal(cookies, wc) {
			t.Errorf("request %d: cookies %q, want %q", i+1, cookies, wc)
		}
		if q := req.URL.Query(); q.Get("a") != "1" || !slices.Equal(q["token"], []string{want[i]}) {
			t.Errorf("request %d: query %q, want a=1 and one token %s", i+1, req.URL.RawQuery, want[i])
		}
		if got := req.Header.Values("X-Token"); !slices.Equal(got, []string{want[i]}) {
			t.Errorf("request %d: X-Token %q, want one %s", i+1, got, want[i])
		}
	}
}

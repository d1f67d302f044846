package runtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// seenRequest is what a server received: headers, query and cookies.
type seenRequest struct {
	header http.Header
	query  string
}

// credentialEditors add an API key in a header, in the query and in a
// cookie, and an Authorization header, as generated With<Scheme> options do.
func credentialEditors() []Option {
	return []Option{
		WithRequestEditor(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-API-Key", "secret-header")
			r.Header.Set("Authorization", "Bearer secret-token")
			return nil
		}),
		WithRequestEditor(func(_ context.Context, r *http.Request) error {
			q := r.URL.Query()
			q.Set("api_key", "secret-query")
			r.URL.RawQuery = q.Encode()
			return nil
		}),
		WithRequestEditor(func(_ context.Context, r *http.Request) error {
			r.AddCookie(&http.Cookie{Name: "session", Value: "secret-cookie"})
			return nil
		}),
	}
}

// TestLoopbackRedirectKeepsCredentialsHome: on 303, 307 and 308 to another
// host, or to another port of the same host, nothing a request editor
// added (header, query parameter, cookie, nor the Referer that would carry
// the query) reaches the other server; a redirect within the client's own
// server keeps them.
func TestLoopbackRedirectKeepsCredentialsHome(t *testing.T) {
	var mu sync.Mutex
	var other []seenRequest
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other = append(other, seenRequest{r.Header.Clone(), r.URL.RawQuery})
		mu.Unlock()
		w.Write([]byte("elsewhere"))
	}))
	defer foreign.Close()
	_, foreignPort, _ := strings.Cut(strings.TrimPrefix(foreign.URL, "http://"), ":")
	var home []seenRequest
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		home = append(home, seenRequest{r.Header.Clone(), r.URL.RawQuery})
		mu.Unlock()
		if r.URL.Path == "/here" {
			w.Write([]byte("home"))
			return
		}
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		target := r.URL.Query().Get("to")
		// A hostile server may even repeat the query in the Location.
		http.Redirect(w, r, target+"?"+r.URL.RawQuery, code)
	}))
	defer own.Close()
	targets := []string{"http://localhost:" + foreignPort + "/there", foreign.URL + "/there"}
	for _, code := range []int{303, 307, 308} {
		for _, target := range targets {
			mu.Lock()
			other, home = nil, nil
			mu.Unlock()
			r, _ := loopRunner(t, quickPolicy(), credentialEditors()...)
			u := own.URL + "/go?code=" + strconv.Itoa(code) + "&to=" + target
			resp, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, u), Body: []byte("x")})
			if err != nil {
				t.Fatalf("%d to %s: %v", code, target, err)
			}
			if b, _ := DecodeText(resp); b != "elsewhere" || len(other) != 1 || len(home) != 1 {
				t.Fatalf("%d to %s: %q, %d foreign and %d home requests", code, target, b, len(other), len(home))
			}
			if home[0].header.Get("X-API-Key") == "" || !strings.Contains(home[0].query, "secret-query") {
				t.Fatalf("%d: the own server got no credentials: %v %q", code, home[0].header, home[0].query)
			}
			all := strings.Join([]string{other[0].query, headerText(other[0].header)}, " ")
			if strings.Contains(all, "secret") {
				t.Errorf("%d to %s: credentials reached the other server: %s", code, target, all)
			}
		}
	}
	// Within the own server, they stay.
	r, _ := loopRunner(t, quickPolicy(), credentialEditors()...)
	home = nil
	resp, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT",
		URL: mustURL(t, own.URL+"/go?code=307&to="+own.URL+"/here"), Body: []byte("x")})
	if b, _ := DecodeText(resp); err != nil || b != "home" || len(home) != 2 || home[1].header.Get("X-API-Key") != "secret-header" {
		t.Fatalf("own redirect: %q %v, %d requests", b, err, len(home))
	}
}

func headerText(h http.Header) string {
	var b strings.Builder
	for k, v := range h {
		b.WriteString(k + ": " + strings.Join(v, ",") + "\n")
	}
	return b.String()
}

// TestLoopbackRedirectHopsChargeNothing: a followed redirect is recorded as
// a hop, not as a failed attempt: it takes nothing from the budget and
// counts nothing against MaxAttempts, so many redirected calls leave the
// budget whole and a redirected call still gets its retry.
func TestLoopbackRedirectHopsChargeNothing(t *testing.T) {
	var finals atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		case "/flaky":
			if finals.Add(1) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Write([]byte("ok"))
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	budget := Budget{Capacity: 10, RetryCost: 1, TimeoutCost: 2}
	r, _ := loopRunner(t, quickPolicy(), WithBudget(Interactive, budget))
	var log []Attempt
	for range 12 {
		resp, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, srv.URL+"/moved"), Body: []byte("x")},
			WithAttemptLog(&log))
		if b, _ := DecodeText(resp); err != nil || b != "ok" {
			t.Fatalf("%q %v", b, err)
		}
	}
	if left := r.BudgetLeft(Interactive); left != 10 {
		t.Fatalf("budget left %v after 12 redirected calls, want 10", left)
	}
	if len(log) != 2 || log[0].StatusCode != 307 || log[0].Outcome != OutcomeRedirected || log[0].Final ||
		log[1].Reason != ReasonRedirect || log[1].Outcome != OutcomeSuccess || log[1].Number != 1 {
		t.Fatalf("records %+v", log)
	}
	p := quickPolicy()
	p.MaxAttempts = 2
	r2, _ := loopRunner(t, p)
	redirectToFlaky := httptest.NewServer(http.RedirectHandler(srv.URL+"/flaky", http.StatusTemporaryRedirect))
	defer redirectToFlaky.Close()
	resp, err := r2.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, redirectToFlaky.URL), Body: []byte("x")},
		WithAttemptLog(&log))
	if b, _ := DecodeText(resp); err != nil || b != "ok" || len(log) != 4 {
		t.Fatalf("redirect then 503: %q %v, records %+v", b, err, log)
	}
}

// flakySources are credential sources for a header, a query parameter and
// a cookie that answer their first good calls and fail every later one,
// and an editor that puts its key under another name after its first call
// and writes one header under a name that is not canonical: what the
// engine strips at a redirect must be what this request carries, never
// what the editors would add if asked again.
func flakySources(good int32) []Option {
	var calls [4]atomic.Int32
	src := func(i int, tok string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) {
			if calls[i].Add(1) > good {
				return "", errors.New("vault unreachable")
			}
			return tok, nil
		}
	}
	return []Option{
		WithCredentialSource("header", src(0, "secret-header"), func(r *http.Request, c string) { r.Header.Set("X-API-Key", c) }),
		WithCredentialSource("query", src(1, "secret-query"), func(r *http.Request, c string) {
			q := r.URL.Query()
			q.Set("api_key", c)
			r.URL.RawQuery = q.Encode()
		}),
		WithCredentialSource("cookie", src(2, "secret-cookie"), func(r *http.Request, c string) {
			r.AddCookie(&http.Cookie{Name: "session", Value: c})
		}),
		WithRequestEditor(func(_ context.Context, r *http.Request) error {
			name := "X-Token"
			if calls[3].Add(1) > 1 {
				// A retry carries the first attempt's name too.
				name = "X-Other-Token"
			}
			r.Header.Set(name, "secret-renamed")
			r.Header["x-raw-key"] = []string{"secret-raw"}
			return nil
		}),
	}
}

// TestLoopbackRedirectStripsWhatThisRequestCarried: a redirect to another
// host or port strips the credentials this attempt's request carries, even
// when the sources that added them fail (or add other names) when called
// again, on the first attempt and on a retry; the own server got them all.
func TestLoopbackRedirectStripsWhatThisRequestCarried(t *testing.T) {
	var mu sync.Mutex
	var other, home []seenRequest
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other = append(other, seenRequest{r.Header.Clone(), r.URL.RawQuery})
		mu.Unlock()
		w.Write([]byte("elsewhere"))
	}))
	defer foreign.Close()
	_, foreignPort, _ := strings.Cut(strings.TrimPrefix(foreign.URL, "http://"), ":")
	var fails atomic.Int32
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		home = append(home, seenRequest{r.Header.Clone(), r.URL.RawQuery})
		mu.Unlock()
		if fails.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		http.Redirect(w, r, r.URL.Query().Get("to")+"?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
	}))
	defer own.Close()
	op := idempotentOp
	op.Security = []string{"header", "query", "cookie"}
	for _, retry := range []bool{false, true} {
		for _, target := range []string{"http://localhost:" + foreignPort + "/there", foreign.URL + "/there"} {
			mu.Lock()
			other, home = nil, nil
			mu.Unlock()
			good := int32(1)
			if retry {
				fails.Store(1)
				good = 2
			}
			r, _ := loopRunner(t, quickPolicy(), flakySources(good)...)
			resp, err := r.Do(context.Background(), &op, &Request{Method: "PUT", URL: mustURL(t, own.URL+"/go?to="+target), Body: []byte("x")})
			if b, _ := DecodeText(resp); err != nil || b != "elsewhere" || len(other) != 1 {
				t.Fatalf("retry %v, to %s: %q %v, %d foreign requests", retry, target, b, err, len(other))
			}
			got := strings.Join([]string{home[len(home)-1].query, headerText(home[len(home)-1].header)}, " ")
			for _, s := range []string{"secret-header", "secret-query", "secret-cookie", "secret-renamed", "secret-raw"} {
				if !strings.Contains(got, s) {
					t.Fatalf("retry %v: the own server did not get %s: %s", retry, s, got)
				}
			}
			if all := other[0].query + " " + headerText(other[0].header); strings.Contains(all, "secret") {
				t.Errorf("retry %v, to %s: credentials reached the other server: %s", retry, target, all)
			}
		}
	}
}

package idemsrv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
)

// secured is an engine with WithSecurity whose schemes answer from fixed
// tables, and one route under reqs; it returns what each request's handler
// saw as its principal ("-" when the handler did not run).
func secured(t *testing.T, anonymous bool, reqs ...[]string) func(*http.Request) (int, string) {
	t.Helper()
	e, err := New(nil, WithSecurity(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	bearer := func(_ context.Context, op string, c BearerCredential) (string, error) {
		switch c.Token {
		case "app":
			return "", nil // admits, names no one
		case "refused":
			return "", errors.New("refused")
		}
		return strings.TrimPrefix(c.Token, "tok-"), nil
	}
	key := func(_ context.Context, _ string, c APIKeyCredential) (string, error) {
		if c.Value == "bad" {
			return "", errors.New("bad key")
		}
		if c.Value == "deny" {
			return "", ErrForbidden
		}
		return c.Value, nil
	}
	cert := func(_ context.Context, _ string, c TLSCredential) (string, error) {
		return c.Certificate.Subject.CommonName, nil
	}
	err = e.Secure(nil, func(any) ([]Scheme, bool) {
		return []Scheme{BearerScheme("bearer", bearer), APIKeyScheme("query", InQuery, "api_key", key),
			APIKeyScheme("cookie", InCookie, "sid", key), TLSScheme("mtls", cert)}, true
	})
	if err != nil {
		t.Fatal(err)
	}
	var seen string
	rt := Route{Op: &idemrt.Operation{ID: "op", Method: "GET", Path: "/x"}, Security: reqs, Anonymous: anonymous}
	if err := e.Handle(rt, func(w http.ResponseWriter, r *http.Request) { seen = Principal(r.Context()) }); err != nil {
		t.Fatal(err)
	}
	return func(r *http.Request) (int, string) {
		seen = "-"
		w := httptest.NewRecorder()
		e.Root().ServeHTTP(w, r)
		return w.Code, seen
	}
}

func get(mods ...func(*http.Request)) *http.Request {
	r := httptest.NewRequest("GET", "/x", nil)
	for _, m := range mods {
		m(r)
	}
	return r
}

func bearerTok(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Add("Authorization", "Bearer "+tok) }
}

func queryKey(v string) func(*http.Request) {
	return func(r *http.Request) { r.URL.RawQuery += "&api_key=" + v }
}

// TestSecurityRequirements: the first alternative whose credentials are all
// present decides; the schemes of an AND-ed requirement must all accept and
// agree on the principal (a scheme may admit without naming one); an
// operation with an empty alternative lets a request without credentials
// through anonymous, but checks the credentials a request does carry.
func TestSecurityRequirements(t *testing.T) {
	orAnon := secured(t, true, []string{"bearer"}, []string{"query"}, nil)
	and := secured(t, false, []string{"bearer", "query"})
	for _, tc := range []struct {
		name   string
		serve  func(*http.Request) (int, string)
		r      *http.Request
		status int
		seen   string
	}{
		{"bearer", orAnon, get(bearerTok("tok-ann")), 200, "ann"},
		{"query key", orAnon, get(queryKey("bob")), 200, "bob"},
		{"first present alternative decides", orAnon, get(bearerTok("tok-ann"), queryKey("bad")), 200, "ann"},
		{"a refused first alternative is not retried by the next", orAnon, get(bearerTok("refused"), queryKey("bob")), 401, "-"},
		{"anonymous", orAnon, get(), 200, ""},
		{"carried credentials are checked even where anonymous is allowed", orAnon, get(queryKey("bad")), 401, "-"},
		{"ErrForbidden is 403", orAnon, get(queryKey("deny")), 403, "-"},
		{"and: both, agreeing", and, get(bearerTok("tok-bob"), queryKey("bob")), 200, "bob"},
		{"and: one admits, the other names", and, get(bearerTok("app"), queryKey("bob")), 200, "bob"},
		{"and: different principals", and, get(bearerTok("tok-ann"), queryKey("bob")), 401, "-"},
		{"and: one missing", and, get(bearerTok("tok-bob")), 401, "-"},
		{"key sent twice is not sent", and, get(bearerTok("tok-bob"), queryKey("bob"), queryKey("bob")), 401, "-"},
	} {
		status, seen := tc.serve(tc.r)
		if status != tc.status || seen != tc.seen {
			t.Errorf("%s: %d, principal %q; want %d, %q", tc.name, status, seen, tc.status, tc.seen)
		}
	}
}

// TestSecurityAllAdmitNoneNames: a requirement whose schemes all accept
// without naming a principal is the SecurityHandler's fault: 500, reported
// to WithOnError, and the handler does not run.
func TestSecurityAllAdmitNoneNames(t *testing.T) {
	serve := secured(t, false, []string{"bearer"})
	if status, seen := serve(get(bearerTok("app"))); status != 500 || seen != "-" {
		t.Errorf("%d %q", status, seen)
	}
}

// TestSecurityCredentialsWhereTheSchemeSays: a cookie key, a client
// certificate, and an Authorization scheme compared without case are read;
// "Bearer" alone, another scheme's header and a cookie sent twice are not.
func TestSecurityCredentialsWhereTheSchemeSays(t *testing.T) {
	serve := secured(t, false, []string{"cookie"}, []string{"mtls"}, []string{"bearer"})
	leaf := &x509.Certificate{}
	leaf.Subject.CommonName = "svc-a"
	for _, tc := range []struct {
		r      *http.Request
		status int
		seen   string
	}{
		{get(func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "sid", Value: "cat"}) }), 200, "cat"},
		{get(func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "sid", Value: "cat"})
			r.AddCookie(&http.Cookie{Name: "sid", Value: "dog"})
		}), 401, "-"},
		{get(func(r *http.Request) { r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}} }), 200, "svc-a"},
		{get(func(r *http.Request) { r.Header.Set("Authorization", "bEaReR   tok-eve") }), 200, "eve"},
		{get(func(r *http.Request) { r.Header.Set("Authorization", "Bearer") }), 401, "-"},
		{get(func(r *http.Request) { r.Header.Set("Authorization", "Basic dTpw") }), 401, "-"},
	} {
		if status, seen := serve(tc.r); status != tc.status || seen != tc.seen {
			t.Errorf("%v %v: %d %q; want %d %q", tc.r.Header, tc.r.TLS != nil, status, seen, tc.status, tc.seen)
		}
	}
}

// TestSecureRefusesHandlersOfAnotherKind: a WithSecurity value the binding
// does not take, or one given for a document without schemes, stops the
// server; keyed operations under security with a ledger need one of the
// two options.
func TestSecureRefusesHandlersOfAnotherKind(t *testing.T) {
	e, _ := New(nil, WithSecurity(1))
	if err := e.Secure(nil, func(any) ([]Scheme, bool) { return nil, false }); err == nil || !strings.Contains(err.Error(), "int") {
		t.Errorf("a foreign handler: %v", err)
	}
	if err := e.Secure(nil, nil); err == nil {
		t.Error("no schemes: no error")
	}
	e, _ = New(nil)
	if err := e.Secure([]string{"a", "b"}, nil); err != nil {
		t.Errorf("no ledger: %v", err)
	}
}

func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{"Digest": true, "": false, "a b": false, "x\r\nSet-Cookie:": false, "é": false} {
		if isToken(s) != want {
			t.Errorf("isToken(%q) = %v", s, !want)
		}
	}
}

// oneBearer is an engine with WithSecurity and opts whose one bearer scheme
// is check, and one route under it; a request's handler counts its runs.
func oneBearer(t testing.TB, check Check[BearerCredential], ran *int, opts ...Option) http.Handler {
	t.Helper()
	e, err := New(nil, append([]Option{WithSecurity(struct{}{})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Secure(nil, func(any) ([]Scheme, bool) { return []Scheme{BearerScheme("bearer", check)}, true }); err != nil {
		t.Fatal(err)
	}
	rt := Route{Op: &idemrt.Operation{ID: "op", Method: "GET", Path: "/x"}, Security: [][]string{{"bearer"}}}
	if err := e.Handle(rt, func(http.ResponseWriter, *http.Request) { *ran++ }); err != nil {
		t.Fatal(err)
	}
	return e.Root()
}

// TestSecurityHandlerPastItsDeadline: a method that ignores its context and
// never returns is cut off at WithAuthTimeout: 503 authentication-timeout
// with Retry-After, the handler does not run, and the request ends (its
// slot with it) while the method still hangs.
func TestSecurityHandlerPastItsDeadline(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	ran := 0
	srv := oneBearer(t, func(context.Context, string, BearerCredential) (string, error) {
		<-hang
		return "alice", nil
	}, &ran, WithAuthTimeout(time.Millisecond))
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, get(bearerTok("t")))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" ||
		!strings.Contains(w.Body.String(), problem.AuthTimeout) || ran != 0 {
		t.Errorf("answer %d, Retry-After %q, body %s, handler ran %d times; want 503 %s, Retry-After 1, no run",
			w.Code, w.Header().Get("Retry-After"), w.Body, ran, problem.AuthTimeout)
	}
}

// TestSecurityHandlerPanicIs500: a method that panics (in the goroutine
// that runs it under the deadline) is answered as a handler's panic: one
// 500 problem, and WithOnError gets the *ledger.PanicError with the method's
// value and its stack.
func TestSecurityHandlerPanicIs500(t *testing.T) {
	var got error
	ran := 0
	srv := oneBearer(t, func(context.Context, string, BearerCredential) (string, error) {
		panic("idp: secret detail")
	}, &ran, WithOnError(func(_ *http.Request, err error) { got = err }))
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, get(bearerTok("t")))
	var pe *ledger.PanicError
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "secret") || ran != 0 {
		t.Errorf("answer %d %s, handler ran %d times; want a 500 without the panic's text", w.Code, w.Body, ran)
	}
	if !errors.As(got, &pe) || pe.Value != "idp: secret detail" || !strings.Contains(string(pe.Stack), "TestSecurityHandlerPanicIs500") {
		t.Errorf("WithOnError got %#v; want the method's *ledger.PanicError with its stack", got)
	}
}

// BenchmarkSecuredRequest is one request of an operation under a bearer
// scheme whose method answers at once: the cost of authenticating it,
// the deadline (WithAuthTimeout) and its goroutine included.
func BenchmarkSecuredRequest(b *testing.B) {
	ran := 0
	srv := oneBearer(b, func(context.Context, string, BearerCredential) (string, error) { return "alice", nil }, &ran)
	r := get(bearerTok("t"))
	b.ReportAllocs()
	for b.Loop() {
		srv.ServeHTTP(httptest.NewRecorder(), r)
	}
}

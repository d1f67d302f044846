package ledgertest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// testRoute: HandleRoute's fields replace the Config's for one operation:
// its key header, its caller, its extra fingerprint headers and its 409's
// Retry-After (the requests carry no X-Caller, which Config.Caller needs).
func testRoute(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.h = f.l.HandleRoute(ledger.Route{
		Operation: "createOrder",
		KeyHeader: "X-Op-Key",
		Caller:    func(r *http.Request) (string, error) { return "tenant-" + r.Header.Get("X-Tenant"), nil },
		// X-Account joins the fingerprint of this operation only.
		FingerprintHeaders: []string{"x-account"},
		BusyRetryAfter:     3 * time.Second,
	}, http.HandlerFunc(f.createOrder))
	send := func(key, account string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(body1))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Tenant", "a")
		r.Header.Set("X-Account", account)
		if key != "" {
			r.Header.Set("X-Op-Key", key)
		}
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		return w
	}
	wantStatus(t, send("", "A"), http.StatusBadRequest) // the route's header is the one required
	first := send("k1", "A")
	wantStatus(t, first, http.StatusCreated)
	if again := send("k1", "A"); again.Body.String() != first.Body.String() || again.Header().Get(ledger.ReplayedHeader) != "true" {
		t.Errorf("repeat: %d %s, want the replay", again.Code, again.Body.String())
	}
	wantStatus(t, send("k1", "B"), http.StatusUnprocessableEntity)
	if rec, ok := f.row("tenant-a", "k1"); !ok || rec.State != ledger.StateCompleted {
		t.Errorf("row of the route's caller: %+v %v", rec, ok)
	}
	// Another execution holds k2, for this very request (X-Account A).
	fp := ledger.Fingerprint(http.MethodPost, "createOrder", "/orders", "application/json", []byte(body1),
		ledger.HeaderFields(http.Header{"X-Account": {"A"}}, []string{"X-Account"})...)
	if _, err := f.store.Reserve(context.Background(), ledger.Reservation{
		ID:          ledger.ID{Caller: "tenant-a", Operation: "createOrder", Key: "k2"},
		Fingerprint: fp, Owner: "other", Now: f.clock.Now(), Lease: lease, TTL: ttl,
	}); err != nil {
		t.Fatal(err)
	}
	busy := send("k2", "A")
	wantStatus(t, busy, http.StatusConflict)
	if got := busy.Header().Get("Retry-After"); got != "3" {
		t.Errorf("409 Retry-After = %q, want the route's 3", got)
	}
	f.wantCounts(1, 1)
}

// testRouteCredentials: a Route's Credentials never join the fingerprint,
// though the Config's FingerprintHeaders and FingerprintCookies name them:
// one intent whose API key is rotated between two attempts, in the query
// (api_key, api%5Fkey), a header or a cookie, replays; the same key with
// another parameter that is not a credential is still 422.
func testRouteCredentials(t *testing.T, open Opener) {
	f := newFixture(t, open, func(c *ledger.Config) {
		c.FingerprintHeaders = []string{"X-Api-Key"}
		c.FingerprintCookies = []string{"sid"}
	})
	f.h = f.l.HandleRoute(ledger.Route{Operation: "createOrder", Credentials: []ledger.Credential{
		{In: ledger.CredentialInQuery, Name: "api_key"}, {In: ledger.CredentialInHeader, Name: "x-api-key"},
		{In: ledger.CredentialInCookie, Name: "sid"}}}, http.HandlerFunc(f.createOrder))
	send := func(target, apiKey string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body1))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Caller", "alice")
		r.Header.Set("Idempotency-Key", "k-rot")
		r.Header.Set("X-API-Key", apiKey)
		r.AddCookie(&http.Cookie{Name: "sid", Value: apiKey})
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		return w
	}
	first := send("/orders?shelf=a&api_key=key-1", "key-1")
	wantStatus(t, first, http.StatusCreated)
	for _, target := range []string{"/orders?shelf=a&api_key=key-2", "/orders?shelf=a&api%5Fkey=key-3", "/orders?shelf=a"} {
		if again := send(target, "key-2"); again.Body.String() != first.Body.String() || again.Header().Get(ledger.ReplayedHeader) != "true" {
			t.Errorf("%s with a rotated key: %d %s, want the replay", target, again.Code, again.Body.String())
		}
	}
	wantStatus(t, send("/orders?shelf=b&api_key=key-1", "key-1"), http.StatusUnprocessableEntity)
	f.wantCounts(1, 1)
}

// testRouteStoredHeaders: the headers a Route names (an operation's
// declared response headers) and a download's Content-Disposition are
// kept and replayed as first sent; a Content-Length or Date the handler
// set is never stored, whatever names it.
func testRouteStoredHeaders(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		w.Header().Set("X-Page-Count", "12")
		w.Header().Set("Content-Disposition", `attachment; filename="report.pdf"`)
		w.Header().Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
		w.Header().Set("Content-Type", "application/pdf")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "%PDF-1.7")
	})
	f.h = f.l.HandleRoute(ledger.Route{Operation: "renderReport",
		StoredHeaders: []string{"x-page-count", "Date", "Content-Length"}}, h)
	first := f.do("alice", "k1", body1)
	again := f.do("alice", "k1", body1)
	wantStatus(t, again, http.StatusOK)
	if again.Header().Get(ledger.ReplayedHeader) != "true" || f.calls.Load() != 1 {
		t.Fatalf("repeat: replayed %q, %d executions; want the replay of one", again.Header().Get(ledger.ReplayedHeader), f.calls.Load())
	}
	for _, name := range []string{"X-Page-Count", "Content-Disposition", "Content-Type"} {
		if got, want := again.Header().Get(name), first.Header().Get(name); got != want || got == "" {
			t.Errorf("replayed %s = %q, want %q", name, got, want)
		}
	}
	if got := again.Header().Get("Date"); got != "" {
		t.Errorf("the first answer's Date was replayed: %q", got)
	}
	if again.Body.String() != "%PDF-1.7" {
		t.Errorf("replayed body %q", again.Body.String())
	}
}

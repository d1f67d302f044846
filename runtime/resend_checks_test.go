package runtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// credentialRunner is a loopback Runner whose request editor adds the
// client's credentials and counts what it sends.
func credentialRunner(t *testing.T, clk Clock, sent *atomic.Int32) *Runner {
	r, _ := loopRunner(t, quickPolicy(), WithClock(clk), WithRequestEditor(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer client-secret")
		sent.Add(1)
		return nil
	}))
	return r
}

// TestResendRefusesDotSegments: an entry whose path climbs out of the
// client's base path, or out of its operation's path, with dot segments
// (plain or percent-encoded) is refused before anything is sent, even when
// it starts with the base path and has as many segments as the template.
func TestResendRefusesDotSegments(t *testing.T) {
	s, srv := newShop(t, dropFirst(""))
	var sent atomic.Int32
	clk := newFakeClock()
	r := credentialRunner(t, clk, &sent)
	server := mustURL(t, srv.URL+"/tenant-a")
	thing := Operation{ID: "getThingNote", Method: "POST", Path: "/things/{id}/notes", Safety: Keyed, KeyHeader: "Idempotency-Key"}
	things := Operation{ID: "createThing", Method: "POST", Path: "/things", Safety: Keyed, KeyHeader: "Idempotency-Key"}
	for _, c := range []struct {
		op   *Operation
		path string
	}{
		{&things, "/tenant-a/../tenant-b/things"},
		{&things, "/tenant-a/%2e%2e/tenant-b/things"},
		{&thing, "/tenant-a/things/../notes"},
		{&thing, "/tenant-a/things/%2e%2e/notes"},
		{&thing, "/tenant-a/things/%2E%2e/notes"},
		{&thing, "/tenant-a/things/./notes"},
		{&thing, "/tenant-a/things/%2E/notes"},
		{&thing, "/tenant-a/things/a%2e%2e/notes"},
	} {
		e := &JournalEntry{ID: "e1", Operation: c.op.ID, Method: "POST", URL: srv.URL + c.path, Key: "k", Body: []byte(`{}`), Created: clk.Now()}
		if _, err := r.Resend(context.Background(), c.op, server, e); !errors.Is(err, ErrNotResendable) {
			t.Errorf("%s: %v, want ErrNotResendable", c.path, err)
		}
	}
	if sent.Load() != 0 || s.hits.Load() != 0 {
		t.Fatalf("%d sent, %d hits; want nothing", sent.Load(), s.hits.Load())
	}
	e := &JournalEntry{ID: "e2", Operation: thing.ID, Method: "POST", URL: srv.URL + "/tenant-a/things/a.b/notes", Key: "k2", Body: []byte(`{}`), Created: clk.Now()}
	resp, err := r.Resend(context.Background(), &thing, server, e)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s.hits.Load() != 1 {
		t.Fatalf("an entry of the operation's path: %d hits, want one", s.hits.Load())
	}
}

// TestResendRefusesAnotherOperationsRequest: an entry of createThing
// (POST /things) that says DELETE /v1/accounts/42, or another method or
// path than its operation's, is refused before anything is sent; an entry
// whose path fills the template's parameters is sent.
func TestResendRefusesAnotherOperationsRequest(t *testing.T) {
	s, srv := newShop(t, dropFirst(""))
	var sent atomic.Int32
	clk := newFakeClock()
	r := credentialRunner(t, clk, &sent)
	server := mustURL(t, srv.URL+"/v1")
	create := Operation{ID: "createThing", Method: "POST", Path: "/things", Safety: Unsafe}
	note := Operation{ID: "addNote", Method: "POST", Path: "/things/{id}/notes/{n}.json", Safety: Unsafe}
	for _, c := range []struct {
		op           *Operation
		method, path string
	}{
		{&create, "DELETE", "/v1/accounts/42"},
		{&create, "DELETE", "/v1/things"},
		{&create, "post", "/v1/things"},
		{&create, "POST", "/v1/accounts/42"},
		{&create, "POST", "/v1/things/42"},
		{&create, "POST", "/v1/things/"},
		{&create, "POST", "/v1"},
		{&note, "POST", "/v1/things//notes/1.json"},
		{&note, "POST", "/v1/things/7/notes/.json"},
		{&note, "POST", "/v1/things/7/notes/1.xml"},
		{&note, "POST", "/v1/things/7/8/notes/1.json"},
		{&Operation{ID: "createThing", Safety: Unsafe}, "POST", "/v1/things"},
	} {
		e := &JournalEntry{ID: "e1", Operation: c.op.ID, Safety: Unsafe, Queued: true, Method: c.method, URL: srv.URL + c.path,
			Key: "k", Body: []byte(`{}`), Created: clk.Now()}
		if _, err := r.Resend(context.Background(), c.op, server, e); !errors.Is(err, ErrNotResendable) {
			t.Errorf("%s %s as %s: %v, want ErrNotResendable", c.method, c.path, c.op.ID, err)
		}
	}
	if sent.Load() != 0 || s.hits.Load() != 0 {
		t.Fatalf("%d sent, %d hits; want nothing", sent.Load(), s.hits.Load())
	}
	for i, path := range []string{"/v1/things", "/v1/things/a%2Fb/notes/x.y.json"} {
		op := []*Operation{&create, &note}[i]
		e := &JournalEntry{ID: "e2", Operation: op.ID, Safety: Unsafe, Queued: true, Method: "POST", URL: srv.URL + path,
			Key: "k", Body: []byte(`{}`), Created: clk.Now()}
		resp, err := r.Resend(context.Background(), op, server, e)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		resp.Body.Close()
	}
	if s.hits.Load() != 2 {
		t.Fatalf("entries of their operations: %d hits, want two", s.hits.Load())
	}
}

// TestResendStopsBeforeKeyTTLEnds (J13): with a key TTL of 3 s, no attempt
// of a resend leaves after the entry's creation plus the TTL less the
// margin (1 s here): an entry 2.4 s old is not sent at all, and one 1 s old
// answered 503 with Retry-After: 2 is not retried.
func TestResendStopsBeforeKeyTTLEnds(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	clk := newFakeClock()
	r, _ := loopRunner(t, quickPolicy(), WithClock(clk))
	op := Operation{ID: "createPayment", Method: "POST", Path: "/payments", Safety: Keyed, KeyHeader: "Idempotency-Key",
		Retryable: DefaultRetryable, KeyTTL: 3 * time.Second}
	entry := func(age time.Duration) *JournalEntry {
		return &JournalEntry{ID: "e", Operation: op.ID, Safety: Keyed, Method: "POST", URL: srv.URL + "/payments", Key: "k",
			Body: []byte(`{}`), Created: clk.Now().Add(-age), TTL: op.KeyTTL}
	}
	if _, err := r.Resend(context.Background(), &op, mustURL(t, srv.URL), entry(2400*time.Millisecond)); !errors.Is(err, ErrNotResendable) || hits.Load() != 0 {
		t.Fatalf("2.4 s old: %v, %d hits; want ErrNotResendable and nothing sent", err, hits.Load())
	}
	start := clk.Now()
	_, err := r.Resend(context.Background(), &op, mustURL(t, srv.URL), entry(time.Second))
	if !errors.Is(err, ErrRetryAfterTooLong) || hits.Load() != 1 || clk.Now() != start {
		t.Fatalf("1 s old: %v, %d hits, waited %s; want one attempt and no wait past the TTL", err, hits.Load(), clk.Now().Sub(start))
	}
}

// TestResendTakesTheServersQueryFromTheClient: a query written into the
// client's server URL (an api-version, a code) is undeclared, so the journal
// keeps its names only; the resend takes their values from the client's
// server, never from the row, and sends the declared pairs as recorded. A
// name-only pair the server URL does not have still refuses the resend.
func TestResendTakesTheServersQueryFromTheClient(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.URL.RawQuery)
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	clk := newFakeClock()
	var sent atomic.Int32
	r := credentialRunner(t, clk, &sent)
	server := mustURL(t, srv.URL+"/v1?api-version=2024-01-01&code=s3cret")
	op := Operation{ID: "createThing", Method: "POST", Path: "/things", Safety: Keyed, KeyHeader: "Idempotency-Key", QueryParams: []string{"mode"}}
	req := &Request{Method: "POST", URL: mustURL(t, srv.URL+"/v1/things?api-version=2024-01-01&code=s3cret&mode=live"), Body: []byte(`{}`), Key: "k1"}
	e := NewJournalEntry(&op, req, clk.Now())
	if strings.Contains(e.URL, "s3cret") || strings.Contains(e.URL, "2024-01-01") {
		t.Fatalf("the journal kept a server query value: %s", e.URL)
	}
	resp, err := r.Resend(context.Background(), &op, server, e)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if q, _ := got.Load().(string); q != "api-version=2024-01-01&code=s3cret&mode=live" {
		t.Fatalf("resent with query %q", q)
	}
	e2 := NewJournalEntry(&op, &Request{Method: "POST", URL: mustURL(t, srv.URL+"/v1/things?api-version=2024-01-01&token=x"), Body: []byte(`{}`), Key: "k2"}, clk.Now())
	if _, err := r.Resend(context.Background(), &op, server, e2); !errors.Is(err, ErrNotResendable) {
		t.Fatalf("an undeclared pair the server URL lacks: %v, want ErrNotResendable", err)
	}
	if sent.Load() != 1 {
		t.Fatalf("%d sends, want 1", sent.Load())
	}
}

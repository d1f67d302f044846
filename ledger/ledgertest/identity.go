package ledgertest

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ledger"
)

// testQueryAsSent: the query joins the fingerprint as sent. tags=a%2Cb is
// one tag ("a,b") and tags=a,b two: the same key with the other is a 422,
// never the first one's result; the same bytes again replay.
func testQueryAsSent(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	first := f.doAt("/orders?tags=a%2Cb", "alice", "k1", body1)
	wantStatus(t, first, http.StatusCreated)
	for _, other := range []string{"/orders?tags=a,b", "/orders?tags=a%2cb"} {
		w := f.doAt(other, "alice", "k1", body1)
		if w.Code != http.StatusUnprocessableEntity || bytes.Contains(w.Body.Bytes(), first.Body.Bytes()) {
			t.Errorf("%s: %d %s, want 422 without the stored result", other, w.Code, w.Body.String())
		}
	}
	again := f.doAt("/orders?tags=a%2Cb", "alice", "k1", body1)
	if again.Body.String() != first.Body.String() || again.Header().Get(ledger.ReplayedHeader) != "true" {
		t.Errorf("the same query again: %d %s, want the replay", again.Code, again.Body.String())
	}
	f.wantCounts(1, 1)
}

// testFingerprintCookies: a cookie named in Route.FingerprintCookies (a
// cookie parameter: tenant) is part of the request. The same key sent with
// another tenant cookie, or none, is a 422, never the other tenant's
// result; other cookies do not count.
func testFingerprintCookies(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.h = f.l.HandleRoute(ledger.Route{Operation: "createOrder", FingerprintCookies: []string{"tenant"}},
		http.HandlerFunc(f.createOrder))
	send := func(cookie string) *httptest.ResponseRecorder {
		var h http.Header
		if cookie != "" {
			h = http.Header{"Cookie": {cookie}}
		}
		return f.doWith("/orders", "alice", "k1", body1, h)
	}
	first := send("tenant=acme")
	wantStatus(t, first, http.StatusCreated)
	for _, other := range []string{"tenant=globex", "", "tenant=", "Tenant=acme", "tenant=acme; tenant=globex"} {
		if w := send(other); w.Code != http.StatusUnprocessableEntity {
			t.Errorf("cookie %q: %d %s, want 422", other, w.Code, w.Body.String())
		}
	}
	again := send("theme=dark; tenant=acme")
	if again.Body.String() != first.Body.String() || again.Header().Get(ledger.ReplayedHeader) != "true" {
		t.Errorf("tenant=acme with another cookie: %d %s, want the replay", again.Code, again.Body.String())
	}
	f.wantCounts(1, 1)
}

// testMultipartBoundaryInContent: two uploads whose files differ, each
// holding its own boundary string in its content, are two requests: the
// second is a 422 and the handler ran once. Hashing the bytes split at the
// boundary made them one.
func testMultipartBoundaryInContent(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.handle(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		w.WriteHeader(http.StatusCreated)
		io.Copy(w, r.Body)
	})
	upload := func(boundary string) *httptest.ResponseRecorder {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.SetBoundary(boundary)
		fw, _ := mw.CreateFormFile("file", "a.bin")
		io.WriteString(fw, "foo--"+boundary+"bar")
		mw.Close()
		return f.doWith("/files", "alice", "k1", buf.String(), http.Header{"Content-Type": {mw.FormDataContentType()}})
	}
	wantStatus(t, upload(strings.Repeat("X", 12)), http.StatusCreated)
	if w := upload(strings.Repeat("Y", 12)); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("the other file: %d, want 422", w.Code)
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want 1", n)
	}
}

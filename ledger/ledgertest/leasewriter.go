package ledgertest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// testLeaseFreesTheWriter: a handler stuck past its lease without watching
// its context (blocked downstream) has its transaction rolled back when the
// lease ends, not when it returns: its locks are freed at once (on SQLite,
// the only writer connection), so another key executes meanwhile, and
// nothing the stuck handler wrote commits.
func testLeaseFreesTheWriter(t *testing.T, open Opener) {
	var cfg ledger.Config
	f := newFixture(t, open, func(c *ledger.Config) { c.Lease = 20 * time.Millisecond; cfg = *c })
	started, unblock := make(chan context.Context), make(chan struct{})
	stuck := f.l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := f.insertOrder(w, r); !ok {
			return
		}
		started <- r.Context()
		<-unblock // deaf to its context
		w.WriteHeader(http.StatusCreated)
	}))
	cfg.Lease = lease
	healthy, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	send := func(h http.Handler, key string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/orders", bytes.NewReader([]byte(body1)))
		r.Header.Set("X-Caller", "alice")
		r.Header.Set("Idempotency-Key", key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	stuckAnswer := make(chan *httptest.ResponseRecorder)
	go func() { stuckAnswer <- send(stuck, "k1") }()
	leaseOf := <-started
	other := make(chan *httptest.ResponseRecorder)
	go func() { other <- send(healthy.Handle("createOrder", http.HandlerFunc(f.createOrder)), "k2") }()
	select {
	case w := <-other:
		wantStatus(t, w, http.StatusCreated)
	case <-time.After(30 * time.Second):
		t.Fatal("another key waited for the stuck handler's transaction past its lease")
	}
	<-leaseOf.Done() // where nothing waits for the writer (PostgreSQL)
	close(unblock)
	if w := <-stuckAnswer; w.Code != http.StatusServiceUnavailable {
		t.Fatalf("the stuck execution answered %d, want 503", w.Code)
	}
	f.wantCounts(1, 1)
}

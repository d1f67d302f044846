package server

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
)

// TestStableIDFollowsTheLedgerKey: an execution the ledger rolls back (the
// handler answered 500) and the retry under the same key create the same
// ids, so a downstream system sees one intent; another key or another
// caller gets other ids.
func TestStableIDFollowsTheLedgerKey(t *testing.T) {
	store, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	l, err := ledger.New(ledger.Config{Store: store, Caller: func(r *http.Request) (string, error) {
		return r.Header.Get("X-Caller"), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	h := l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, stableID(r.Context(), "ch_"))
		if len(seen) == 1 {
			w.WriteHeader(http.StatusInternalServerError) // rolled back, key released
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	send := func(caller, key string) int {
		req := httptest.NewRequest("POST", "/orders", nil)
		req.Header.Set("X-Caller", caller)
		req.Header.Set("Idempotency-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	codes := []int{send("alice", "k1"), send("alice", "k1"), send("alice", "k2"), send("bob", "k1")}
	if codes[0] != 500 || codes[1] != 201 || len(seen) != 4 {
		t.Fatalf("statuses %v, %d executions", codes, len(seen))
	}
	if seen[0] != seen[1] {
		t.Errorf("the retry after a rollback made %s, the first execution %s", seen[1], seen[0])
	}
	if seen[2] == seen[0] || seen[3] == seen[0] || seen[2] == seen[3] {
		t.Errorf("other key or caller reused an id: %v", seen)
	}
}

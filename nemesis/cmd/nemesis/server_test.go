package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// The load curve's one-process store: "nemesis server -sqlite" runs the
// shop, the ledger and the outbox on one SQLite file, and a keyed create
// sent twice with one key executes once (one order row, one outbox event)
// while a fresh key executes again; with -bypass-ledger the repeat
// executes again, as on PostgreSQL.
func TestServerOnSQLite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bypass bool
		want   int
	}{{"ledger", false, 2}, {"bypass", true, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			o := serverOptions{sqlitePath: filepath.Join(t.TempDir(), "shop.db"), bypassLedger: tc.bypass}
			store, err := openStore(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			h, err := newServerHandler(ctx, o, store)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"k1", "k1", "k2"} {
				r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"reference":"ref-`+key+`","item":"i","amount_cents":5}`))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Authorization", "Bearer t1")
				r.Header.Set("Idempotency-Key", key)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusCreated {
					t.Fatalf("key %s: status %d: %s", key, w.Code, w.Body)
				}
			}
			var orders, events int
			if err := store.DB().QueryRowContext(ctx, `SELECT count(*) FROM orders`).Scan(&orders); err != nil {
				t.Fatal(err)
			}
			if err := store.DB().QueryRowContext(ctx, `SELECT count(*) FROM idem_outbox`).Scan(&events); err != nil {
				t.Fatal(err)
			}
			if orders != tc.want || events != tc.want {
				t.Errorf("%d orders and %d outbox events for keys k1, k1, k2; want %d of each", orders, events, tc.want)
			}
		})
	}
}

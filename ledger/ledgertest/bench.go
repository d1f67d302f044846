package ledgertest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// Bench measures, on store, the per-request cost of the bare business
// handler (its own transaction: one order row and one outbox row), of the
// same handler behind the ledger (new key: reserve, execute, complete; same
// key: replay), and the throughput of keyed POSTs over loopback HTTP.
// Overhead per request = ledger/new-key - bare.
func Bench(b *testing.B, store *sqlstore.Store) {
	ctx := context.Background()
	if _, err := store.DB().ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bench_orders (id TEXT PRIMARY KEY, item TEXT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	ob := outbox.New(store.DB(), store.Dialect(), nil)
	biz := businessHandler(store, ob)
	l, err := ledger.New(ledger.Config{Store: store, Caller: func(*http.Request) (string, error) { return "bench", nil }})
	if err != nil {
		b.Fatal(err)
	}
	keyed := l.Handle("createOrder", biz)
	b.Run("bare", func(b *testing.B) { runInProcess(b, bareHandler(store, biz), false) })
	b.Run("ledger/new-key", func(b *testing.B) { runInProcess(b, keyed, true) })
	b.Run("ledger/replay", func(b *testing.B) { runInProcess(b, keyed, false) })
	b.Run("loopback/keyed-POST", func(b *testing.B) { runLoopback(b, keyed) })
}

// businessHandler writes one order and one outbox event in ledger.Tx.
func businessHandler(store *sqlstore.Store, ob *outbox.Outbox) http.Handler {
	q := store.Dialect().Rebind(`INSERT INTO bench_orders (id, item) VALUES (?, ?)`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, tx := r.Context(), ledger.Tx(r.Context())
		id := uuid.NewString()
		if _, err := tx.ExecContext(ctx, q, id, "book"); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if _, err := ob.Add(ctx, tx, outbox.Event{Topic: "order.created", Payload: []byte(id)}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":%q}`, id)
	})
}

// bareHandler runs the business handler in a transaction of its own, with
// no ledger: the baseline.
func bareHandler(store *sqlstore.Store, biz http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tx, err := store.Begin(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		rec := httptest.NewRecorder()
		biz.ServeHTTP(rec, r.WithContext(ledger.WithTx(r.Context(), tx)))
		if err := tx.Commit(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

var benchBody = []byte(`{"item":"book","qty":1}`)

func runInProcess(b *testing.B, h http.Handler, freshKeys bool) {
	var n atomic.Int64
	run := fmt.Sprintf("%d", time.Now().UnixNano())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/orders", bytes.NewReader(benchBody))
		r.Header.Set("Content-Type", "application/json")
		key := "replayed-" + run
		if freshKeys {
			key = fmt.Sprintf("%s-%d", run, n.Add(1))
		}
		r.Header.Set("Idempotency-Key", key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusCreated {
			b.Fatalf("status %d: %s", w.Code, w.Body.String())
		}
	}
}

// runLoopback posts with a fresh key per request from parallel clients to
// a loopback server and reports requests per second.
func runLoopback(b *testing.B, h http.Handler) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	var n atomic.Int64
	run := time.Now().UnixNano()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/orders", bytes.NewReader(benchBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", fmt.Sprintf("lb-%d-%d", run, n.Add(1)))
			resp, err := c.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "req/s")
}

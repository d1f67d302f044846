package pgstore_test

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
	"github.com/idemgen/idemgen/runtime/problem"
)

// TestCommitCutOnTheWire: a real PostgreSQL behind a loopback proxy that
// cuts the business transaction's connection exactly at its COMMIT, over
// real HTTP. However the COMMIT ends, the ledger answers only what it
// knows, the client's resend with the same key gets the stored result, and
// the business row is committed once:
//
//   - the COMMIT reaches the server and its answer is lost: the ledger
//     reads the key back (completed by this execution) and answers the
//     handler's 201; the resend replays it;
//   - the COMMIT never reaches the server: the read-back finds the key
//     released, the answer is 503 "not executed" with Retry-After; the
//     resend executes;
//   - the COMMIT reaches the server, then the database is unreachable (a
//     primary that died): nothing can be read back, the answer is 503
//     "outcome unknown" with Retry-After; once the database is back, the
//     resend replays the committed result.
func TestCommitCutOnTheWire(t *testing.T) {
	cluster := pgtest.Start(t)
	for _, tc := range []struct {
		name     string
		mode     cutMode
		status   int
		problem  string
		executed int // handler runs, in all
	}{
		{"answer lost", cutAfterServer, http.StatusCreated, "", 1},
		{"COMMIT lost", cutBeforeServer, http.StatusServiceUnavailable, problem.StoreUnavailable, 2},
		{"primary gone", cutAfterServerThenDown, http.StatusServiceUnavailable, problem.OutcomeUnknown, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := cluster.NewDatabase(t)
			proxy := newPGProxy(t, "127.0.0.1:"+portOf(t, dsn))
			srv, ran, direct := orderServer(t, viaProxy(t, dsn, proxy.addr()), dsn)
			proxy.arm(tc.mode)
			first := postOrder(t, srv.URL, "key-1")
			if first.status != tc.status || !strings.Contains(first.body, tc.problem) {
				t.Fatalf("first attempt: %d %s, want %d %s", first.status, first.body, tc.status, tc.problem)
			}
			if (tc.status == http.StatusServiceUnavailable) != (first.retryAfter != "") || first.replayed {
				t.Fatalf("first attempt: Retry-After %q, replayed %v", first.retryAfter, first.replayed)
			}
			if tc.mode != cutBeforeServer {
				<-proxy.served // the server has finished the COMMIT
			}
			proxy.up()
			resend := postOrder(t, srv.URL, "key-1")
			if resend.status != http.StatusCreated || resend.body != `{"id":"ord-1"}` {
				t.Fatalf("resend: %d %s", resend.status, resend.body)
			}
			if tc.status == http.StatusCreated && (first.body != resend.body || !resend.replayed) {
				t.Fatalf("resend: %s (replayed %v), want the replay of %s", resend.body, resend.replayed, first.body)
			}
			if n := countOrders(t, direct); n != 1 || ran.Load() != int64(tc.executed) {
				t.Fatalf("%d orders committed, handler ran %d times; want 1 and %d", n, ran.Load(), tc.executed)
			}
		})
	}
}

type answer struct {
	status     int
	body       string
	retryAfter string
	replayed   bool
}

func postOrder(t *testing.T, base, key string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/orders", strings.NewReader(`{"item":"book"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, string(body), resp.Header.Get("Retry-After"), resp.Header.Get("Idempotent-Replayed") == "true"}
}

// orderServer serves POST /orders behind the ledger on the PostgreSQL
// database dsn names, on 127.0.0.1: the handler writes one order row in the
// ledger's transaction and answers 201. It returns the server, the count of
// handler runs and a pool on directDSN, the same database without the proxy.
func orderServer(t *testing.T, dsn, directDSN string) (*httptest.Server, *atomic.Int64, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	store, err := pgstore.Open(ctx, dsn, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.DB().ExecContext(ctx, `CREATE TABLE orders (id text PRIMARY KEY, item text)`); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(ledger.Config{Store: store, Caller: func(*http.Request) (string, error) { return "alice", nil }})
	if err != nil {
		t.Fatal(err)
	}
	ran := new(atomic.Int64)
	h := l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran.Add(1)
		if _, err := ledger.Tx(r.Context()).ExecContext(r.Context(), `INSERT INTO orders (id, item) VALUES ('ord-1', 'book')`); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"ord-1"}`)
	}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	direct, err := sql.Open("pgx", directDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { direct.Close() })
	return srv, ran, direct
}

func countOrders(t *testing.T, db *sql.DB) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM orders`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func portOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// viaProxy is dsn with its host and port replaced by addr.
func viaProxy(t *testing.T, dsn, addr string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

package serverbench

import (
	"encoding/json"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"testing"

	"github.com/idemgen/idemgen/bench/internal/cpuclock"
	"github.com/idemgen/idemgen/bench/internal/fixtures"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

// checkAnswer fails unless the last answer in s is want with the canned
// order as its JSON body (the same value; member order and spacing are each
// encoder's own).
func checkAnswer(tb testing.TB, name string, s *sink, want int) {
	tb.Helper()
	if s.status != want {
		tb.Fatalf("%s: status %d, want %d (body %.200s)", name, s.status, want, s.body)
	}
	if mt, _, err := mime.ParseMediaType(s.header.Get("Content-Type")); err != nil || mt != "application/json" {
		tb.Fatalf("%s: Content-Type %q, want application/json", name, s.header.Get("Content-Type"))
	}
	var got, order any
	if err := json.Unmarshal(s.body, &got); err != nil {
		tb.Fatalf("%s: the body is not JSON: %v (%.200s)", name, err, s.body)
	}
	if err := json.Unmarshal([]byte(fixtures.OrderJSON), &order); err != nil {
		tb.Fatal(err)
	}
	if !reflect.DeepEqual(got, order) {
		tb.Fatalf("%s: body\n%s\nis not the canned order\n%s", name, s.body, fixtures.OrderJSON)
	}
}

// serve serves q once into s.
func serve(h http.Handler, q *request, s *sink) {
	s.reset()
	h.ServeHTTP(s, q.rewind())
}

// TestServersAgree: every server answers the GET and the keyed POST with
// the canned order, and a wrong request (another order ID, a body missing
// its items) is not answered as a success, so the handlers' checks bite.
func TestServersAgree(t *testing.T) {
	for _, srv := range newServers(t) {
		s := newSink()
		serve(srv.h, getRequest(), s)
		checkAnswer(t, srv.name+" GET", s, http.StatusOK)
		serve(srv.h, postRequest("k-1"), s)
		checkAnswer(t, srv.name+" POST", s, http.StatusCreated)

		wrong := getRequest()
		wrong.r.URL.Path = "/orders/ord_other"
		serve(srv.h, wrong, s)
		if s.status < 400 {
			t.Errorf("%s: GET of another order answered %d", srv.name, s.status)
		}
		partial := postRequest("k-2")
		partial.data = []byte(`{"customerId":"cus_1842","items":[]}`)
		partial.r.ContentLength = int64(len(partial.data))
		serve(srv.h, partial, s)
		if s.status < 400 {
			t.Errorf("%s: POST without the items answered %d", srv.name, s.status)
		}
	}
}

// TestLedgerServerAnswersAndReplays: behind the ledger on SQLite, a fresh
// key runs the handler and a repeated key replays the same bytes.
func TestLedgerServerAnswersAndReplays(t *testing.T) {
	h := newLedgerServer(t, "FULL", 0)
	s := newSink()
	q := postRequest("k-1")
	serve(h, q, s)
	checkAnswer(t, "ledger POST", s, http.StatusCreated)
	first := string(s.body)
	serve(h, q, s)
	checkAnswer(t, "ledger replay", s, http.StatusCreated)
	if s.header.Get("Idempotent-Replayed") != "true" || string(s.body) != first {
		t.Fatalf("replay: Idempotent-Replayed %q, body %s, want true and %s",
			s.header.Get("Idempotent-Replayed"), s.body, first)
	}
}

// measure serves q with h b.N times, checking every status and the last
// body, and reports the process's CPU time per request (cpu-ns/op) beside
// the wall time. next, when not nil, readies the request before each one.
func measure(b *testing.B, h http.Handler, q *request, want int, next func(n int)) {
	s := newSink()
	b.ReportAllocs()
	cpu0 := cpuclock.Used()
	n := 0
	for b.Loop() {
		if next != nil {
			next(n)
			n++
		}
		serve(h, q, s)
		if s.status != want {
			b.Fatalf("status %d, want %d (body %.200s)", s.status, want, s.body)
		}
	}
	b.ReportMetric(float64(cpuclock.Used()-cpu0)/float64(b.N), "cpu-ns/op")
	b.StopTimer()
	checkAnswer(b, b.Name(), s, want)
}

// BenchmarkServeGet: GET /orders/{orderId} through each server.
func BenchmarkServeGet(b *testing.B) {
	for _, srv := range newServers(b) {
		b.Run(srv.name, func(b *testing.B) {
			measure(b, srv.h, getRequest(), http.StatusOK, nil)
		})
	}
}

// BenchmarkServePost: the keyed POST /orders through each server without a
// ledger, then through idemgen's with the ledger on SQLite: a fresh key per
// request (synchronous FULL, the store's default, and NORMAL), and one key
// replayed (the handler does not run) from the ledger's replay cache and,
// uncached, from the store; then the same on PostgreSQL.
func BenchmarkServePost(b *testing.B) {
	for _, srv := range newServers(b) {
		b.Run(srv.name, func(b *testing.B) {
			measure(b, srv.h, postRequest("k-1"), http.StatusCreated, nil)
		})
	}
	for _, sync := range []string{"FULL", "NORMAL"} {
		b.Run("idemgen-sqlite-"+sync, func(b *testing.B) {
			q := postRequest("")
			measure(b, newLedgerServer(b, sync, 0), q, http.StatusCreated, q.setKey)
		})
	}
	b.Run("idemgen-sqlite-replay", func(b *testing.B) {
		benchReplay(b, newLedgerServer(b, "FULL", 0))
	})
	b.Run("idemgen-sqlite-replay-uncached", func(b *testing.B) {
		benchReplay(b, newLedgerServer(b, "FULL", -1))
	})
	// PostgreSQL: a throwaway cluster for the two sub-benchmarks, started
	// once (it takes seconds); skipped without the server binaries.
	var cluster *pgtest.Cluster
	if pgtest.BinDir() != "" {
		cluster = pgtest.Start(b)
	}
	b.Run("idemgen-pg", func(b *testing.B) {
		skipWithoutPG(b, cluster)
		q := postRequest("")
		measure(b, newPGLedgerServer(b, cluster, 0), q, http.StatusCreated, q.setKey)
	})
	b.Run("idemgen-pg-replay", func(b *testing.B) {
		skipWithoutPG(b, cluster)
		benchReplay(b, newPGLedgerServer(b, cluster, 0))
	})
	b.Run("idemgen-pg-replay-uncached", func(b *testing.B) {
		skipWithoutPG(b, cluster)
		benchReplay(b, newPGLedgerServer(b, cluster, -1))
	})
}

// benchReplay stores one key's answer in h, then replays it.
func benchReplay(b *testing.B, h http.Handler) {
	q, s := postRequest("k-"+strconv.Itoa(1)), newSink()
	serve(h, q, s) // stores the answer every iteration replays
	measure(b, h, q, http.StatusCreated, nil)
}

func skipWithoutPG(b *testing.B, cluster *pgtest.Cluster) {
	if cluster == nil {
		b.Skip(pgtest.ErrNoBinaries)
	}
}

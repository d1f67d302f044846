package journalbench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
)

var createOrder = idemrt.Operation{ID: "createOrder", Method: "POST", Path: "/orders", Safety: idemrt.Keyed,
	KeyHeader: "Idempotency-Key", Retryable: idemrt.DefaultRetryable}

var body = []byte(`{"customer_id":"c1","items":[{"sku":"s","quantity":1,"unit_price":5}]}`)

// run sends b.N keyed POSTs, a fresh key each, through a Runner with opts.
func run(b *testing.B, opts ...idemrt.Option) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"id":"0b1c"}`)
	}))
	defer srv.Close()
	u, err := url.Parse(srv.URL + "/orders")
	if err != nil {
		b.Fatal(err)
	}
	r := idemrt.NewRunner(append([]idemrt.Option{idemrt.WithHTTPClient(srv.Client())}, opts...)...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req := &idemrt.Request{Method: "POST", URL: u, Body: body, Header: http.Header{"Content-Type": {"application/json"}}}
		resp, err := r.Do(ctx, &createOrder, req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func BenchmarkKeyedCallNoJournal(b *testing.B) { run(b) }

func sqliteJournal(b *testing.B, sync string) *journal.SQL {
	j, err := sqlitestore.OpenJournal(context.Background(), filepath.Join(b.TempDir(), "journal.db"), sqlitestore.WithSynchronous(sync))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	return j
}

func BenchmarkKeyedCallJournalSQLiteNormal(b *testing.B) {
	run(b, idemrt.WithJournal(sqliteJournal(b, "NORMAL")))
}

func BenchmarkKeyedCallJournalSQLiteFull(b *testing.B) {
	run(b, idemrt.WithJournal(sqliteJournal(b, "FULL")))
}

func BenchmarkKeyedCallJournalPostgres(b *testing.B) {
	j, err := pgstore.OpenJournal(context.Background(), pgtest.Start(b).NewDatabase(b), 4)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	run(b, idemrt.WithJournal(j))
}

package serverbench

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/bench/servers/idemgen"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemsrv "github.com/idemgen/idemgen/server"
)

// newLedgerServer is idemgen's server with the ledger on a fresh SQLite
// file in a temporary folder; synchronous is the store's PRAGMA
// synchronous ("FULL", its default, syncs every commit).
func newLedgerServer(tb testing.TB, synchronous string) http.Handler {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "ledger.db")
	store, err := sqlitestore.Open(context.Background(), path, sqlitestore.WithSynchronous(synchronous))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := idemgen.NewServer(idemgenHandler{cannedOrder[idemgen.Order](tb)}, idemsrv.WithLedger(l))
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

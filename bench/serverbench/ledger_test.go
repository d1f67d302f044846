package serverbench

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/bench/servers/idemgen"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
	idemsrv "github.com/idemgen/idemgen/server"
)

// newLedgerServer is idemgen's server with the ledger on a fresh SQLite
// file in a temporary folder; synchronous is the store's PRAGMA
// synchronous ("FULL", its default, syncs every commit).
func newLedgerServer(tb testing.TB, synchronous string, replayCache int) http.Handler {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "ledger.db")
	store, err := sqlitestore.Open(context.Background(), path, sqlitestore.WithSynchronous(synchronous))
	if err != nil {
		tb.Fatal(err)
	}
	return ledgerServer(tb, store, replayCache)
}

// newPGLedgerServer is idemgen's server with the ledger on a fresh database
// of cluster (pgtest's throwaway server: fsync and synchronous_commit off).
func newPGLedgerServer(tb testing.TB, cluster *pgtest.Cluster, replayCache int) http.Handler {
	tb.Helper()
	store, err := pgstore.Open(context.Background(), cluster.NewDatabase(tb), 4)
	if err != nil {
		tb.Fatal(err)
	}
	return ledgerServer(tb, store, replayCache)
}

// ledgerServer puts the ledger on store in front of the canned handler,
// with ledger.Config.ReplayCache replayCache (0: the default; -1: every
// replay reads the store); store closes when tb ends.
func ledgerServer(tb testing.TB, store *sqlstore.Store, replayCache int) http.Handler {
	tb.Helper()
	tb.Cleanup(func() { _ = store.Close() })
	l, err := ledger.New(ledger.Config{Store: store, ReplayCache: replayCache})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := idemgen.NewServer(idemgenHandler{cannedOrder[idemgen.Order](tb)}, idemsrv.WithLedger(l))
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

package pgstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/idemgen/idemgen/ledger/ledgertest"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

func TestLedgerPostgres(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t)
	ledgertest.Run(t, func(t *testing.T) *sqlstore.Store {
		// One database for the suite; each test starts from empty tables
		// (creating a database per test costs more than the test).
		reset(t, dsn)
		s, err := pgstore.Open(context.Background(), dsn, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func reset(t *testing.T, dsn string) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE IF EXISTS orders, effects, idem_ledger, idem_outbox, idem_consumed, idem_parked`); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkLedgerPostgres(b *testing.B) {
	cluster := pgtest.Start(b)
	s, err := pgstore.Open(context.Background(), cluster.NewDatabase(b), 20)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ledgertest.Bench(b, s)
}

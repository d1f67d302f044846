package pgstore_test

import (
	"context"
	"testing"

	"github.com/idemgen/idemgen/internal/pgtest"
	_ "github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ledger/ledgertest"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

func TestLedgerPostgres(t *testing.T) {
	cluster := pgtest.Start(t)
	ledgertest.Run(t, func(t *testing.T) *sqlstore.Store {
		s, err := pgstore.Open(context.Background(), cluster.NewDatabase(t), 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.DB().Close() })
		return s
	})
}

// Package e2e is the worst-breakpoint suite: the generated payments client
// against the real payments server running as a separate process, on a real
// database (SQLite always, PostgreSQL when its binaries exist), asserting on
// the rows (orders, charges, outbox events, notifications), not only on
// status codes.
package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	_ "github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
)

var (
	// serverBin is the payments server, built once per test binary.
	serverBin string
	// cluster is the shared PostgreSQL cluster, or nil with pgErr set.
	cluster *pgtest.Cluster
	pgErr   error
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "payments-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	serverBin = filepath.Join(dir, "payments-server")
	build := exec.Command("go", "build", "-o", serverBin, "github.com/idemgen/idemgen/examples/payments/cmd/payments-server")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the payments server: %v\n%s", err, out)
		return 1
	}
	var stop func()
	cluster, stop, pgErr = pgtest.Launch()
	if pgErr == nil {
		defer stop()
	} else if !errors.Is(pgErr, pgtest.ErrNoBinaries) {
		fmt.Fprintf(os.Stderr, "starting PostgreSQL: %v\n", pgErr)
		return 1
	}
	return m.Run()
}

func pgtestUnavailable(t *testing.T) { pgtest.Unavailable(t, pgErr) }

package serverbench

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/idemgen/idemgen/bench/internal/cpuclock"
	"github.com/idemgen/idemgen/bench/internal/fixtures"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// The floor's statements are the ledger's own (ledger/sqlstore/stmts.go):
// the reservation's insert, the completion's update, the replay's read.
const (
	floorInsert = `INSERT INTO idem_ledger
(caller, operation, idem_key, fingerprint, state, lease_owner, lease_expires, created_at, expires_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (caller, operation, idem_key) DO NOTHING`
	floorComplete = `UPDATE idem_ledger SET state = ?, status = ?, header = ?, body = ?
WHERE caller = ? AND operation = ? AND idem_key = ? AND state = ? AND lease_owner = ?`
	floorGet = `SELECT fingerprint, state, status, header, body, lease_owner, lease_expires, created_at, expires_at
FROM idem_ledger WHERE caller = ? AND operation = ? AND idem_key = ?`
)

// floorFingerprint and floorOwner have the lengths of the ledger's (a hex
// SHA-256, a UUID and a sequence number).
const (
	floorFingerprint = "3b7f0c2a9d4e8f1a6b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"
	floorOwner       = "0b6e1c52-3f7a-4d8e-9a1b-2c3d4e5f6a7b:1"
	floorHeader      = `{"Content-Type":["application/json"]}`
)

// floorStore is one store's floor: the two commits of a fresh key and the
// one indexed read of a replay, through the store's own pools (same driver,
// pragmas and schema), with prepared statements and no cancellable context.
type floorStore struct {
	insert, complete, get *sql.Stmt
	db                    *sql.DB
}

func newFloorStore(tb testing.TB, store *sqlstore.Store) *floorStore {
	tb.Helper()
	tb.Cleanup(func() { _ = store.Close() })
	d := store.Dialect()
	f := &floorStore{db: store.DB()}
	var err error
	for _, s := range []struct {
		dst **sql.Stmt
		db  *sql.DB
		q   string
	}{{&f.insert, store.DB(), floorInsert}, {&f.complete, store.DB(), floorComplete}, {&f.get, store.Reader(), floorGet}} {
		if *s.dst, err = s.db.Prepare(d.Rebind(s.q)); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { (*s.dst).Close() })
	}
	return f
}

// twoCommits reserves key (an autocommit insert) and completes it with the
// canned answer in a transaction of its own: what a fresh key must commit.
func (f *floorStore) twoCommits(key string) error {
	now := time.Now().UnixNano()
	_, err := f.insert.Exec("principal:alice", "createOrder", key, floorFingerprint, "in_progress", floorOwner,
		now+int64(30*time.Second), now, now+int64(24*time.Hour))
	if err != nil {
		return err
	}
	tx, err := f.db.Begin()
	if err != nil {
		return err
	}
	res, err := tx.Stmt(f.complete).Exec("completed", http.StatusCreated, floorHeader, []byte(fixtures.OrderJSON),
		"principal:alice", "createOrder", key, "in_progress", floorOwner)
	if err == nil {
		_, err = res.RowsAffected()
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// oneCommit reserves key and completes it in one transaction: what a fresh
// key must commit when the reservation is made inside the business
// transaction (ledger.TxReserver, the ledger on SQLite).
func (f *floorStore) oneCommit(key string) error {
	now := time.Now().UnixNano()
	tx, err := f.db.Begin()
	if err != nil {
		return err
	}
	_, err = tx.Stmt(f.insert).Exec("principal:alice", "createOrder", key, floorFingerprint, "in_progress", floorOwner,
		now+int64(30*time.Second), now, now+int64(24*time.Hour))
	if err == nil {
		_, err = tx.Stmt(f.complete).Exec("completed", http.StatusCreated, floorHeader, []byte(fixtures.OrderJSON),
			"principal:alice", "createOrder", key, "in_progress", floorOwner)
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// read is the one indexed read of a completed key, every column scanned.
func (f *floorStore) read(key string) error {
	var fp, state, hdr, owner string
	var status int
	var body []byte
	var times [3]int64
	return f.get.QueryRow("principal:alice", "createOrder", key).Scan(&fp, &state, &status, &hdr, &body, &owner,
		&times[0], &times[1], &times[2])
}

// measureFloor runs op b.N times and reports cpu-ns/op as measure does.
func measureFloor(b *testing.B, op func(n int) error) {
	b.ReportAllocs()
	cpu0 := cpuclock.Used()
	n := 0
	for b.Loop() {
		if err := op(n); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(cpuclock.Used()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkLedgerFloor sets the ledger beside its store's floor, store by
// store (SQLite NORMAL, SQLite FULL, PostgreSQL): "two-commits" is the
// minimal pair of commits of a fresh key (floorStore.twoCommits),
// "one-commit" the same statements in one transaction (floorStore.oneCommit,
// the floor where the reservation is made inside the business transaction),
// and "fresh-key" the keyed POST through idemgen's server and the ledger
// with a fresh key (BenchmarkServePost's); "indexed-read" is one read of a
// completed row and "replay-uncached" a replay that reads the store.
// bench/floor.sh runs it and prints fresh-key over both floors and
// replay-uncached / indexed-read.
func BenchmarkLedgerFloor(b *testing.B) {
	ctx := context.Background()
	for _, sync := range []string{"NORMAL", "FULL"} {
		open := func(b *testing.B) *sqlstore.Store {
			s, err := sqlitestore.Open(ctx, filepath.Join(b.TempDir(), "floor.db"), sqlitestore.WithSynchronous(sync))
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
		benchFloor(b, "sqlite-"+sync, open, func(b *testing.B, cache int) http.Handler {
			return newLedgerServer(b, sync, cache)
		})
	}
	var cluster *pgtest.Cluster
	if pgtest.BinDir() != "" {
		cluster = pgtest.Start(b)
	}
	benchFloor(b, "pg", func(b *testing.B) *sqlstore.Store {
		skipWithoutPG(b, cluster)
		s, err := pgstore.Open(ctx, cluster.NewDatabase(b), 4)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}, func(b *testing.B, cache int) http.Handler {
		skipWithoutPG(b, cluster)
		return newPGLedgerServer(b, cluster, cache)
	})
}

// benchFloor runs one store's four sub-benchmarks.
func benchFloor(b *testing.B, name string, open func(*testing.B) *sqlstore.Store, server func(*testing.B, int) http.Handler) {
	b.Run(name+"/two-commits", func(b *testing.B) {
		f := newFloorStore(b, open(b))
		measureFloor(b, func(n int) error { return f.twoCommits("k-" + strconv.Itoa(n)) })
	})
	b.Run(name+"/one-commit", func(b *testing.B) {
		f := newFloorStore(b, open(b))
		measureFloor(b, func(n int) error { return f.oneCommit("k-" + strconv.Itoa(n)) })
	})
	b.Run(name+"/fresh-key", func(b *testing.B) {
		q := postRequest("")
		measure(b, server(b, 0), q, http.StatusCreated, q.setKey)
	})
	b.Run(name+"/indexed-read", func(b *testing.B) {
		f := newFloorStore(b, open(b))
		if err := f.twoCommits("k-1"); err != nil {
			b.Fatal(err)
		}
		measureFloor(b, func(int) error { return f.read("k-1") })
	})
	b.Run(name+"/replay-uncached", func(b *testing.B) {
		benchReplay(b, server(b, -1))
	})
}

// Package sqlitestore opens the ledger on SQLite through the pure-Go
// modernc.org/sqlite driver: a file on disk in WAL mode.
package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	"github.com/idemgen/idemgen/ledger/sqlstore"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Option tunes Open.
type Option func(*settings)

type settings struct{ synchronous string }

// WithSynchronous sets PRAGMA synchronous: "FULL" (the default) syncs every
// commit, so a stored key and its business rows survive a power loss;
// "NORMAL" syncs only at WAL checkpoints, which is several times faster and
// still survives a crash of the process, but a power loss may drop the last
// commits (keys and business rows together, never one without the other).
func WithSynchronous(mode string) Option {
	return func(s *settings) { s.synchronous = mode }
}

// Open opens (creating if needed) the database file at path and migrates it.
//
// Writes go through a pool of a single connection: SQLite has one writer at
// a time anyway, and one connection makes every write transaction (the short
// reservation and the handler's business transaction) run strictly one
// after another, so a reservation is atomic without busy-retry loops.
// Plain reads (replays, 422s and "in progress" answers, the sweeper's list)
// use a separate read-only pool, which WAL lets run beside the writer.
// Handlers must use ledger.Tx(ctx) and never the *sql.DB directly while they
// run: a second write connection would wait for the one the handler holds.
// Close the store with Store.Close.
func Open(ctx context.Context, path string, opts ...Option) (*sqlstore.Store, error) {
	db, set, err := openWriter(path, opts)
	if err != nil {
		return nil, err
	}
	s := sqlstore.New(db, sqlstore.SQLite)
	if err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	rdb, err := open(path, set.synchronous, true, readers)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.SetReader(rdb)
	return s, nil
}

// openWriter opens the single-connection write pool with opts applied.
func openWriter(path string, opts []Option) (*sql.DB, settings, error) {
	set, err := settingsOf(opts)
	if err != nil {
		return nil, set, err
	}
	db, err := open(path, set.synchronous, false, 1)
	return db, set, err
}

// settingsOf applies opts to the defaults and checks the result.
func settingsOf(opts []Option) (settings, error) {
	set := settings{synchronous: "FULL"}
	for _, o := range opts {
		o(&set)
	}
	switch set.synchronous {
	case "FULL", "NORMAL", "EXTRA", "OFF":
		return set, nil
	}
	return set, fmt.Errorf("sqlitestore: synchronous mode %q is not FULL, NORMAL, EXTRA or OFF", set.synchronous)
}

// readers bounds the read-only pool.
const readers = 4

func open(path, synchronous string, readOnly bool, conns int) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous("+synchronous+")")
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
	}
	// The path is escaped as OpenReadOnly escapes it: a '#' or '?' in a
	// file name would otherwise end the name inside the URI.
	db, err := sql.Open("sqlite", "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	db.SetMaxOpenConns(conns)
	return db, nil
}

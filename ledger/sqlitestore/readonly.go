package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"

	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// sqliteNotADB is SQLITE_NOTADB: the file is not an SQLite database.
const sqliteNotADB = 26

// ErrNoFile is returned by OpenReadOnly when path names no regular file:
// opening read-only never creates one.
var ErrNoFile = errors.New("no such database file")

// OpenReadOnly opens an existing ledger file for inspection: SQLite's
// mode=ro plus query_only, so no statement through the store can write, and
// nothing is migrated. The store's writes (Reserve, Complete, Release,
// Purge) fail. It checks that the file holds a ledger (sqlstore.ErrNotLedger
// otherwise). On a WAL database that no process has open, SQLite may create
// the -wal and -shm files beside it; the database file itself is not
// written.
func OpenReadOnly(ctx context.Context, path string) (*sqlstore.Store, error) {
	db, err := openReadOnlyDB(ctx, path)
	if err != nil {
		return nil, err
	}
	s := sqlstore.New(db, sqlstore.SQLite)
	if err := s.CheckSchema(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// openReadOnlyDB opens the existing SQLite file at path read-only and checks
// that it is a database.
func openReadOnlyDB(ctx context.Context, path string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("sqlitestore: %s: %w", path, ErrNoFile)
	case err != nil:
		return nil, fmt.Errorf("sqlitestore: %w", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("sqlitestore: %s is not a regular file: %w", path, ErrNoFile)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+escapePath(abs)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	db.SetMaxOpenConns(readers)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		var serr *sqlite.Error
		if errors.As(err, &serr) && serr.Code()&0xff == sqliteNotADB {
			return nil, &sqlstore.NotLedgerError{Err: err}
		}
		return nil, fmt.Errorf("sqlitestore: %s: %w", path, err)
	}
	return db, nil
}

// escapePath makes path safe inside an SQLite URI, where '?' starts the
// query, '#' the fragment, and '%' an escape.
func escapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}

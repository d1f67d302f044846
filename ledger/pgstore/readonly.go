package pgstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// OpenReadOnly connects to an existing ledger for inspection: every
// session runs with default_transaction_read_only, so each statement is a
// read-only transaction that the server refuses to let write, and nothing
// is migrated. statementTimeout (0 for none) bounds each statement on the
// server, so an inspection cannot load a busy database for long. It checks
// that the database holds a ledger (sqlstore.ErrNotLedger otherwise).
func OpenReadOnly(ctx context.Context, dsn string, statementTimeout time.Duration) (*sqlstore.Store, error) {
	db, err := connectReadOnly(ctx, dsn, statementTimeout)
	if err != nil {
		return nil, err
	}
	s := sqlstore.New(db, sqlstore.Postgres)
	if err := s.CheckSchema(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// connectReadOnly opens a small pool of read-only sessions on dsn, each
// statement bounded by statementTimeout (0: none).
func connectReadOnly(ctx context.Context, dsn string, statementTimeout time.Duration) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	if statementTimeout > 0 {
		cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(statementTimeout.Milliseconds(), 10)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	return db, nil
}

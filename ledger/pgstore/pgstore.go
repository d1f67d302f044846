// Package pgstore opens the ledger on PostgreSQL through pgx's database/sql
// driver, for deployments that outgrow one machine.
package pgstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/idemgen/idemgen/ledger/sqlstore"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Open connects to dsn (a postgres:// URL or key=value string) and migrates
// the schema. maxConns bounds the pool (0 keeps database/sql's default).
func Open(ctx context.Context, dsn string, maxConns int) (*sqlstore.Store, error) {
	db, err := connect(ctx, dsn, maxConns)
	if err != nil {
		return nil, err
	}
	s := sqlstore.New(db, sqlstore.Postgres)
	if err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// connect opens a pool of at most maxConns (0: database/sql's default) on
// dsn and checks that the server answers.
func connect(ctx context.Context, dsn string, maxConns int) (*sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if maxConns > 0 {
		db.SetMaxOpenConns(maxConns)
		db.SetMaxIdleConns(maxConns)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	return db, nil
}

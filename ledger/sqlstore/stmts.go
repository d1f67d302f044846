package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
)

// stmtID names one of the statements a request runs; each is prepared once
// per pool and, by database/sql, once per connection of that pool.
type stmtID int

const (
	stmtInsert stmtID = iota
	stmtGet
	stmtTakeOver
	stmtComplete
	stmtRelease
	numStmts
)

// stmtSQL is each statement with '?' placeholders (Rebind makes them
// numbered for PostgreSQL).
var stmtSQL = [numStmts]string{
	stmtInsert: `INSERT INTO idem_ledger
(caller, operation, idem_key, fingerprint, state, lease_owner, lease_expires, created_at, expires_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (caller, operation, idem_key) DO NOTHING`,
	// The row's identity is the WHERE clause's, so it is not read back.
	stmtGet: `SELECT fingerprint, state, status, header, body, lease_owner, lease_expires, created_at, expires_at
FROM idem_ledger WHERE caller = ? AND operation = ? AND idem_key = ?`,
	stmtTakeOver: `UPDATE idem_ledger SET fingerprint = ?, state = ?, status = 0,
header = '', body = NULL, lease_owner = ?, lease_expires = ?, created_at = ?, expires_at = ?
WHERE caller = ? AND operation = ? AND idem_key = ? AND state = ? AND lease_owner = ?`,
	stmtComplete: `UPDATE idem_ledger SET state = ?, status = ?, header = ?, body = ?
WHERE caller = ? AND operation = ? AND idem_key = ? AND state = ? AND lease_owner = ?`,
	stmtRelease: `DELETE FROM idem_ledger
WHERE caller = ? AND operation = ? AND idem_key = ? AND state = ? AND lease_owner = ?`,
}

// stmtSet holds one pool's prepared statements. The parsing and planning
// of a statement (in the pure-Go SQLite driver, most of the CPU of a short
// statement) then happens once per connection instead of once per call.
type stmtSet struct {
	db    *sql.DB
	mu    sync.Mutex // serialises preparing, never using
	stmts [numStmts]atomic.Pointer[sql.Stmt]
}

// prepare readies id on the pool, if it is not ready yet. It takes a
// connection of the pool, so it must never run while the caller holds the
// pool's only connection in a transaction (the SQLite writer): statements
// run inside transactions are prepared by Migrate, before any transaction.
func (p *stmtSet) prepare(ctx context.Context, d Dialect, id stmtID) (*sql.Stmt, error) {
	if st := p.stmts[id].Load(); st != nil {
		return st, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st := p.stmts[id].Load(); st != nil {
		return st, nil
	}
	st, err := p.db.PrepareContext(ctx, d.Rebind(stmtSQL[id]))
	if err != nil {
		return nil, err
	}
	p.stmts[id].Store(st)
	return st, nil
}

// close closes the prepared statements.
func (p *stmtSet) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for i := range p.stmts {
		if st := p.stmts[i].Swap(nil); st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// prepareAll readies every statement on the writer pool and Get on the
// reader pool; Migrate calls it once the tables exist. A failure is not
// fatal: a statement that is not prepared runs as plain text.
func (s *Store) prepareAll(ctx context.Context) {
	for id := range numStmts {
		s.ws.prepare(ctx, s.d, id)
	}
	if s.rs != &s.ws {
		s.rs.prepare(ctx, s.d, stmtGet)
	}
}

// execTx runs id inside tx: the pool's prepared statement bound to tx's
// connection, or the text when it was never prepared (never preparing
// here: that would need a second connection, which SQLite's writer pool
// does not have while tx holds its only one).
func (s *Store) execTx(ctx context.Context, tx *sql.Tx, id stmtID, args ...any) (sql.Result, error) {
	if st := s.ws.stmts[id].Load(); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, s.q(stmtSQL[id]), args...)
}

// queryTx is execTx for a query.
func (s *Store) queryTx(ctx context.Context, tx *sql.Tx, id stmtID, args ...any) (*sql.Rows, error) {
	if st := s.ws.stmts[id].Load(); st != nil {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, s.q(stmtSQL[id]), args...)
}

// exec runs id on pool p outside any transaction, preparing it first if
// needed (this takes a connection, as running the text would).
func (s *Store) exec(ctx context.Context, p *stmtSet, id stmtID, args ...any) (sql.Result, error) {
	st, err := p.prepare(ctx, s.d, id)
	if err != nil {
		return p.db.ExecContext(ctx, s.q(stmtSQL[id]), args...)
	}
	return st.ExecContext(ctx, args...)
}

// query is exec for a query.
func (s *Store) query(ctx context.Context, p *stmtSet, id stmtID, args ...any) (*sql.Rows, error) {
	st, err := p.prepare(ctx, s.d, id)
	if err != nil {
		return p.db.QueryContext(ctx, s.q(stmtSQL[id]), args...)
	}
	return st.QueryContext(ctx, args...)
}

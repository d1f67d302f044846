package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// Store is a ledger.Store on a database/sql handle.
type Store struct {
	db *sql.DB
	// rdb serves plain reads (Get, Stuck); it is db unless SetReader
	// gave a read-only pool (SQLite, whose writer pool has one connection).
	rdb *sql.DB
	d   Dialect
	// ws and rs hold the statements prepared on db and rdb (rs is &ws
	// while rdb is db).
	ws stmtSet
	rs *stmtSet
}

var (
	_ ledger.Store         = (*Store)(nil)
	_ ledger.RepeatSettler = (*Store)(nil)
	_ ledger.TxReserver    = (*Store)(nil)
)

// New wraps db; call Migrate once before use.
func New(db *sql.DB, d Dialect) *Store {
	s := &Store{db: db, rdb: db, d: d}
	s.ws.db, s.rs = db, &s.ws
	return s
}

// SetReader routes plain reads (Get, Stuck) to rdb, a pool that sees what
// db commits; Close closes it too. Call it before the store serves.
func (s *Store) SetReader(rdb *sql.DB) {
	s.rdb = rdb
	s.rs = &stmtSet{db: rdb}
}

// Close closes the prepared statements and the database handles.
func (s *Store) Close() error {
	s.ws.close()
	if s.rs != &s.ws {
		s.rs.close()
	}
	err := s.db.Close()
	if s.rdb != s.db {
		if rerr := s.rdb.Close(); err == nil {
			err = rerr
		}
	}
	return err
}

// DB returns the underlying handle (for the outbox and the application).
func (s *Store) DB() *sql.DB { return s.db }

// Reader returns the pool for plain reads: the read-only pool set by
// SetReader, else DB. On SQLite, application reads outside the ledger
// (a GET handler) belong here, so they never wait for the single writer.
func (s *Store) Reader() *sql.DB { return s.rdb }

// Dialect returns the store's dialect.
func (s *Store) Dialect() Dialect { return s.d }

// Migrate creates the tables and indexes if they are missing, and adds the
// columns of Dialect.AddedColumns to tables an earlier version created.
// Running it again, or from several processes at once, changes nothing more.
func (s *Store) Migrate(ctx context.Context) error {
	for _, q := range s.d.Schema() {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlstore: migrate: %w", err)
		}
	}
	for _, c := range s.d.AddedColumns() {
		if err := s.addColumn(ctx, c); err != nil {
			return err
		}
	}
	s.prepareAll(ctx)
	return nil
}

// Begin starts the business transaction. On SQLite the transaction's own
// statements (its BEGIN and COMMIT) run on a context without ctx's
// cancellation: the driver watches every statement run on a cancellable
// context with a goroutine of its own, a sixth of a fresh key's CPU, and
// a local COMMIT has nothing to wait for that cancelling would cut short.
// The caller rolls the transaction back when ctx ends (the ledger does, at
// the end of the lease), and statements run in it on ctx are interrupted
// as before. On PostgreSQL ctx is kept: it bounds a COMMIT that waits on a
// network that went silent.
func (s *Store) Begin(ctx context.Context) (*sql.Tx, error) {
	if s.d.Name == SQLite.Name {
		ctx = context.WithoutCancel(ctx)
	}
	return s.db.BeginTx(ctx, nil)
}

func (s *Store) q(query string) string { return s.d.Rebind(query) }

// Reserve inserts the row if absent; otherwise it reads the row and decides.
// The insert is atomic through the primary key (ON CONFLICT DO NOTHING), and
// every takeover of an existing row is a conditional UPDATE whose affected-row
// count says whether this execution won, so two racing executions can never
// both believe they hold the key. A fresh key, the common case, is the
// insert alone in its own implicit transaction. An existing key is read
// next; a row that settles it (a replay, a 422, a live lease) costs that
// read alone. Only a key that must be taken over, or that vanished in
// between, pays for the explicit transaction that reads and decides.
func (s *Store) Reserve(ctx context.Context, r ledger.Reservation) (ledger.Decision, error) {
	fresh := freshRecord(r)
	dec, settled, err := s.reserveOrRead(ctx, r, fresh)
	if err != nil || settled {
		return dec, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return ledger.Decision{}, err
	}
	defer tx.Rollback()
	dec, err = s.reserveTx(ctx, tx, r, fresh)
	if err != nil {
		return ledger.Decision{}, err
	}
	return dec, tx.Commit()
}

// ReserveSettlesRepeats reports that Reserve settles an existing key
// itself (ledger.RepeatSettler), so the ledger need not read a key before
// reserving it: a fresh key costs the insert alone.
func (s *Store) ReserveSettlesRepeats() bool { return true }

// ReservesInTx reports whether the ledger reserves keys inside the business
// transaction (ledger.TxReserver): on SQLite, whose transaction holds the
// only writer, so a fresh key commits once. On PostgreSQL a reservation
// commits on its own, so that another process sees the key in progress
// and a stalled one's lease can be taken over.
func (s *Store) ReservesInTx() bool { return s.d.Name == SQLite.Name }

// ReserveTx is Reserve inside tx, the transaction Begin started: the row it
// inserts or takes over commits or rolls back with tx. On SQLite its
// statements run without ctx's cancellation, as Complete's do.
func (s *Store) ReserveTx(ctx context.Context, tx *sql.Tx, r ledger.Reservation) (ledger.Decision, error) {
	if s.d.Name == SQLite.Name {
		ctx = context.WithoutCancel(ctx)
	}
	return s.reserveTx(ctx, tx, r, freshRecord(r))
}

// reserveOrRead tries the insert, then reads the row it collided with: the
// decision when either settles the key, else settled is false.
func (s *Store) reserveOrRead(ctx context.Context, r ledger.Reservation, fresh ledger.Record) (ledger.Decision, bool, error) {
	res, err := s.exec(ctx, &s.ws, stmtInsert, insertArgs(r, fresh)...)
	if err != nil {
		return ledger.Decision{}, false, fmt.Errorf("sqlstore: reserve: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return ledger.Decision{Outcome: ledger.Reserved, Record: fresh}, true, nil
	}
	rec, found, err := s.Get(ctx, r.ID)
	switch {
	case err != nil:
		return ledger.Decision{}, false, err
	case !found:
		// Deleted since the insert's check: the explicit transaction decides.
		return ledger.Decision{}, false, nil
	}
	out, takeOver, _ := judge(r, rec)
	return ledger.Decision{Outcome: out, Record: rec}, !takeOver, nil
}

func insertArgs(r ledger.Reservation, fresh ledger.Record) []any {
	return []any{r.Caller, r.Operation, r.Key, r.Fingerprint, string(ledger.StateInProgress), r.Owner,
		nanos(fresh.LeaseExpires), nanos(r.Now), nanos(fresh.ExpiresAt)}
}

// reserveTx inserts again (the row may have been purged since the first
// try), then reads the row it found and decides.
func (s *Store) reserveTx(ctx context.Context, tx *sql.Tx, r ledger.Reservation, fresh ledger.Record) (ledger.Decision, error) {
	res, err := s.execTx(ctx, tx, stmtInsert, insertArgs(r, fresh)...)
	if err != nil {
		return ledger.Decision{}, fmt.Errorf("sqlstore: reserve: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return ledger.Decision{Outcome: ledger.Reserved, Record: fresh}, nil
	}
	rows, err := s.queryTx(ctx, tx, stmtGet, r.Caller, r.Operation, r.Key)
	rec, ok, err := readRecord(rows, err, r.ID)
	if err != nil {
		return ledger.Decision{}, err
	}
	if !ok {
		// Purged between the insert and the read: the caller retries.
		return ledger.Decision{Outcome: ledger.Busy, Record: fresh}, nil
	}
	return s.decide(ctx, tx, r, rec)
}

func freshRecord(r ledger.Reservation) ledger.Record {
	return ledger.Record{
		ID: r.ID, Fingerprint: r.Fingerprint, State: ledger.StateInProgress,
		LeaseOwner: r.Owner, LeaseExpires: latest(r.Now.Add(r.Lease)),
		CreatedAt: r.Now, ExpiresAt: latest(r.Now.Add(r.TTL)),
	}
}

// decide applies the state machine to an existing row.
func (s *Store) decide(ctx context.Context, tx *sql.Tx, r ledger.Reservation, rec ledger.Record) (ledger.Decision, error) {
	out, takeOver, renew := judge(r, rec)
	if takeOver {
		return s.takeOver(ctx, tx, r, rec, renew)
	}
	return ledger.Decision{Outcome: out, Record: rec}, nil
}

// judge is the state machine on an existing row: the outcome, or takeOver
// when this execution must take the row over (renew: as a new key, its TTL
// over).
func judge(r ledger.Reservation, rec ledger.Record) (out ledger.Outcome, takeOver, renew bool) {
	expiredKey := !r.Now.Before(rec.ExpiresAt)
	deadLease := rec.State == ledger.StateInProgress && !r.Now.Before(rec.LeaseExpires)
	switch {
	case expiredKey && (rec.State == ledger.StateCompleted || deadLease):
		// The key outlived its TTL but was not purged yet: it is absent.
		return ledger.Reserved, true, true
	case rec.Fingerprint != r.Fingerprint:
		return ledger.Mismatch, false, false
	case rec.State == ledger.StateCompleted:
		return ledger.Replay, false, false
	case deadLease:
		return ledger.Reserved, true, false
	default:
		return ledger.Busy, false, false
	}
}

// takeOver rewrites rec for this execution, guarded by the previous owner and
// state so that only one racing execution wins.
func (s *Store) takeOver(ctx context.Context, tx *sql.Tx, r ledger.Reservation, rec ledger.Record, renew bool) (ledger.Decision, error) {
	fresh := freshRecord(r)
	if !renew {
		// A reclaimed lease keeps the key's original life span.
		fresh.CreatedAt, fresh.ExpiresAt = rec.CreatedAt, rec.ExpiresAt
	}
	res, err := s.execTx(ctx, tx, stmtTakeOver,
		r.Fingerprint, string(ledger.StateInProgress), r.Owner, nanos(fresh.LeaseExpires),
		nanos(fresh.CreatedAt), nanos(fresh.ExpiresAt),
		r.Caller, r.Operation, r.Key, string(rec.State), rec.LeaseOwner)
	if err != nil {
		return ledger.Decision{}, fmt.Errorf("sqlstore: take over: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		// Another execution won the race: report the key as busy.
		return ledger.Decision{Outcome: ledger.Busy, Record: rec}, nil
	}
	return ledger.Decision{Outcome: ledger.Reserved, Record: fresh, Reclaimed: !renew}, nil
}

// Complete stores resp in tx if owner still holds the lease. The body is
// bound as it is; only the few stored headers are encoded. On SQLite the
// UPDATE runs on a context without ctx's cancellation, as Begin's
// statements do: the caller checks ctx before and rolls back when it ends.
func (s *Store) Complete(ctx context.Context, tx *sql.Tx, id ledger.ID, owner string, resp ledger.Response) error {
	hdr, err := encodeHeader(resp.Header)
	if err != nil {
		return err
	}
	body := resp.Body
	if body == nil {
		body = []byte{}
	}
	if s.d.Name == SQLite.Name {
		// As the transaction's BEGIN and COMMIT (see Begin): one short
		// UPDATE on the writer this transaction holds.
		ctx = context.WithoutCancel(ctx)
	}
	res, err := s.execTx(ctx, tx, stmtComplete,
		string(ledger.StateCompleted), resp.Status, hdr, body,
		id.Caller, id.Operation, id.Key, string(ledger.StateInProgress), owner)
	if err != nil {
		return fmt.Errorf("sqlstore: complete: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ledger.ErrLeaseLost
	}
	return nil
}

// Release deletes owner's in-progress reservation.
func (s *Store) Release(ctx context.Context, id ledger.ID, owner string) error {
	_, err := s.exec(ctx, &s.ws, stmtRelease,
		id.Caller, id.Operation, id.Key, string(ledger.StateInProgress), owner)
	if err != nil {
		return fmt.Errorf("sqlstore: release: %w", err)
	}
	return nil
}

// Get reads one row: one indexed read on the reader pool. On SQLite it runs
// without ctx's cancellation, as Begin's statements do: a read of a local
// file in WAL mode never waits for the writer, and the driver would watch a
// cancellable context with a goroutine for each read.
func (s *Store) Get(ctx context.Context, id ledger.ID) (ledger.Record, bool, error) {
	if s.d.Name == SQLite.Name {
		ctx = context.WithoutCancel(ctx)
	}
	rows, err := s.query(ctx, s.rs, stmtGet, id.Caller, id.Operation, id.Key)
	return readRecord(rows, err, id)
}

// readRecord reads the row of stmtGet, if any, as id's record. The body is
// copied once, out of the driver's buffer.
func readRecord(rows *sql.Rows, err error, id ledger.ID) (ledger.Record, bool, error) {
	if err != nil {
		return ledger.Record{}, false, fmt.Errorf("sqlstore: get: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return ledger.Record{}, false, fmt.Errorf("sqlstore: get: %w", err)
		}
		return ledger.Record{}, false, nil
	}
	// One value holds every destination, so that Scan's pointers cost one
	// allocation. Strings, not bytes: the driver hands its text columns
	// over as strings, which a string destination keeps without a copy.
	dst := &struct {
		rec        ledger.Record
		state, hdr string
		times      [3]int64
	}{rec: ledger.Record{ID: id}}
	rec := &dst.rec
	err = rows.Scan(&rec.Fingerprint, &dst.state, &rec.Response.Status, &dst.hdr, &rec.Response.Body,
		&rec.LeaseOwner, &dst.times[0], &dst.times[1], &dst.times[2])
	if err == nil {
		err = finishRecord(rec, dst.state, dst.hdr, dst.times)
	}
	if err != nil {
		return ledger.Record{}, false, fmt.Errorf("sqlstore: get: %w", err)
	}
	return *rec, true, rows.Close()
}

// finishRecord sets what the columns hold in another form: the state (one
// of the package's constants when it is one), the times in Unix nanoseconds, and the header.
func finishRecord(rec *ledger.Record, state, hdr string, times [3]int64) error {
	switch state {
	case string(ledger.StateInProgress):
		rec.State = ledger.StateInProgress
	case string(ledger.StateCompleted):
		rec.State = ledger.StateCompleted
	default:
		rec.State = ledger.State(state)
	}
	rec.LeaseExpires, rec.CreatedAt, rec.ExpiresAt = time.Unix(0, times[0]), time.Unix(0, times[1]), time.Unix(0, times[2])
	if len(hdr) > 0 {
		h, err := decodeHeader(hdr)
		if err != nil {
			return fmt.Errorf("stored header: %w", err)
		}
		rec.Response.Header = h
	}
	return nil
}

const recordColumns = `caller, operation, idem_key, fingerprint, state, status, header, body,
lease_owner, lease_expires, created_at, expires_at`

type scanner interface{ Scan(dest ...any) error }

func scanRecord(sc scanner) (ledger.Record, error) {
	var rec ledger.Record
	var state, hdr string
	var times [3]int64
	err := sc.Scan(&rec.Caller, &rec.Operation, &rec.Key, &rec.Fingerprint, &state,
		&rec.Response.Status, &hdr, &rec.Response.Body, &rec.LeaseOwner, &times[0], &times[1], &times[2])
	if err != nil {
		return rec, err
	}
	return rec, finishRecord(&rec, state, hdr, times)
}

// Stuck lists in-progress rows whose lease expired before now, oldest first.
func (s *Store) Stuck(ctx context.Context, now time.Time, limit int) ([]ledger.Record, error) {
	rows, err := s.rdb.QueryContext(ctx, s.q(`SELECT `+recordColumns+` FROM idem_ledger
WHERE `+stuckWhere+` ORDER BY lease_expires LIMIT ?`), append(stuckArgs(now), limit)...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: stuck: %w", err)
	}
	defer rows.Close()
	var out []ledger.Record
	for rows.Next() {
		rec, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: stuck: %w", err)
		}
		out = append(out, rec)
	}
	return out, rows.Err()
}

// Purge deletes rows past their TTL; an in-progress row also needs a dead
// lease, so that a slow execution never loses its reservation under it.
func (s *Store) Purge(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM idem_ledger WHERE `+purgeWhere), purgeArgs(now)...)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: purge: %w", err)
	}
	return res.RowsAffected()
}

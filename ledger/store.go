package ledger

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"
)

// State is the state of a ledger row.
type State string

const (
	// StateInProgress: the key is reserved by a lease owner that is running
	// the handler (or crashed doing so; see Record.LeaseExpires).
	StateInProgress State = "in_progress"
	// StateCompleted: the handler's business transaction committed together
	// with the stored response.
	StateCompleted State = "completed"
)

// ID names one ledger row: unique on (Caller, Operation, Key).
type ID struct {
	// Caller is the tenant or principal the key belongs to.
	Caller    string
	Operation string
	Key       string
}

// Response is a stored response, replayed byte for byte.
type Response struct {
	Status int
	// Header holds the selected headers only (Config.StoredHeaders).
	Header http.Header
	Body   []byte
}

// Record is one ledger row.
type Record struct {
	ID
	Fingerprint  string
	State        State
	Response     Response
	LeaseOwner   string
	LeaseExpires time.Time
	CreatedAt    time.Time
	// ExpiresAt is when the key may be purged and reused (the key's TTL).
	ExpiresAt time.Time
}

// Reservation asks the store to reserve a key for one execution.
type Reservation struct {
	ID
	Fingerprint string
	// Owner identifies this execution; the lease is held in its name.
	Owner string
	Now   time.Time
	// Lease is how long the reservation protects the execution.
	Lease time.Duration
	// TTL is how long the completed key is kept for replay.
	TTL time.Duration
}

// Outcome is the store's decision on a Reservation.
type Outcome int

const (
	// Reserved: the caller owns the key and must run the handler.
	Reserved Outcome = iota + 1
	// Replay: the key completed with the same fingerprint; Record.Response
	// is the stored answer.
	Replay
	// Mismatch: the key exists with another fingerprint (422).
	Mismatch
	// Busy: another execution holds a live lease on the key (409).
	Busy
)

// Decision is the result of Store.Reserve.
type Decision struct {
	Outcome Outcome
	// Record is the row as read (for Replay and Busy) or as written.
	Record Record
	// Reclaimed is true when Reserved took over an expired lease.
	Reclaimed bool
}

// ErrLeaseLost is returned by Store.Complete when the caller's lease was
// taken over (it expired and another execution reclaimed the key) or the row
// vanished: the business transaction must roll back.
var ErrLeaseLost = errors.New("ledger: lease lost before completion")

// Store persists the ledger. Reserve and Release run in their own short
// transactions; Complete runs inside the business transaction that the
// handler wrote to, so that business rows and the ledger's completion commit
// together or not at all.
type Store interface {
	// Reserve atomically reserves the key, or reports why it cannot.
	Reserve(ctx context.Context, r Reservation) (Decision, error)
	// Begin starts the business transaction handed to the handler.
	Begin(ctx context.Context) (*sql.Tx, error)
	// Complete marks the key completed with resp inside tx, provided owner
	// still holds the lease; otherwise ErrLeaseLost.
	Complete(ctx context.Context, tx *sql.Tx, id ID, owner string, resp Response) error
	// Release deletes a reservation whose execution failed (the business
	// transaction rolled back), so that a retry executes afresh.
	Release(ctx context.Context, id ID, owner string) error
	// Get reads one row.
	Get(ctx context.Context, id ID) (Record, bool, error)
	// Stuck lists in-progress rows whose lease expired before now.
	Stuck(ctx context.Context, now time.Time, limit int) ([]Record, error)
	// Purge deletes rows whose TTL expired before now (completed rows, and
	// in-progress rows whose lease also expired) and returns how many.
	Purge(ctx context.Context, now time.Time) (int64, error)
}

// RepeatSettler is implemented by a Store whose Reserve settles an existing
// key (a replay, a 422, a live lease) itself, without a write: sqlstore
// tries the insert and reads the row only when it collides. When
// ReserveSettlesRepeats is true the ledger calls Reserve without reading a
// key it has not seen lately first, which saves a read on every fresh key;
// a key it saw (a likely repeat) is still read first, so that retries do
// not queue behind writers, and the replay cache is looked up before
// either. A store without it is read first for every key.
type RepeatSettler interface {
	ReserveSettlesRepeats() bool
}

// TxReserver is implemented by a Store that can reserve a key inside the
// business transaction Begin started, so that a fresh key commits once,
// together with the business writes, instead of twice. When ReservesInTx is
// true the ledger reserves every keyed execution with ReserveTx: right
// where that transaction holds the store's only writer (sqlstore on
// SQLite), so that no other execution of the key can begin before it ends.
// A reservation made so is never seen in progress by another process: a
// repeat sent there meanwhile waits for the writer and then replays. A
// crashed execution leaves no row: its transaction never committed.
type TxReserver interface {
	ReservesInTx() bool
	// ReserveTx is Reserve inside tx: the row it inserts or takes over
	// commits or rolls back with tx.
	ReserveTx(ctx context.Context, tx *sql.Tx, r Reservation) (Decision, error)
}

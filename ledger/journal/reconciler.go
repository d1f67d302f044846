package journal

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// Store is what a Reconciler needs of a journal; *SQL implements it.
type Store interface {
	Claim(ctx context.Context, owner string, now time.Time, grace, lease time.Duration, limit int) ([]Entry, error)
	Renew(ctx context.Context, id, owner string, until time.Time) error
	Settle(ctx context.Context, id, owner string, state State, resolution string, status int, note string) error
	Dequeue(ctx context.Context, id, owner string) error
}

// Kind is how a Reconciler settled an entry.
type Kind int

const (
	// Executed: the server executed the intent; Outcome holds its answer.
	Executed Kind = iota + 1
	// NotExecuted: the server did not execute it (a lookup found nothing,
	// or a resend got a definite refusal, in Outcome).
	NotExecuted
	// NeedsPerson: the reconciler cannot tell and will not guess; Why says
	// what is missing. The entry is never resent.
	NeedsPerson
)

// String names the kind as the journal stores it.
func (k Kind) String() string {
	switch k {
	case Executed:
		return "executed"
	case NotExecuted:
		return "not-executed"
	case NeedsPerson:
		return "needs-person"
	}
	return "unknown"
}

// Outcome is what a Reconciler learned about one entry.
type Outcome struct {
	Kind Kind
	// Status, Header and Body are the answer that settled it: the resend's
	// response or the lookup's result (Header nil for a lookup).
	Status int
	Header http.Header
	Body   []byte
	// Why says how it was learned, or, for NeedsPerson, what is missing.
	Why string
}

// Reconciler settles the entries a journal holds unresolved. For each one
// that settled (its deadline, the end of its call's hold, else its creation)
// more than Grace ago:
//
//   - a keyed entry is resent with its key and frozen body while its TTL
//     allows (the server's ledger then replays the first execution's answer
//     or executes it once), until a definite answer;
//   - an unsafe entry is looked up through the Client's x-lookup
//     (idemrt.IntentLooker): found is Executed, not found NotExecuted;
//   - an entry queued by RecordTx gets its first send;
//   - anything else (no x-lookup, a keyed entry past its TTL, a body that
//     was not kept, a key the server holds for another body) is NeedsPerson,
//     never resent.
//
// An entry whose key is empty needs a person at once: a lookup by an empty
// key proves nothing, and a keyed resend without its key is not safe. An
// answer that settles nothing (the server unreachable, a 5xx, a 401) leaves
// the entry for a later pass, after its lease. An entry whose call is still
// running in the process that recorded it (idemrt.JournalHolder) is not
// touched until its hold ends. Several Reconcilers may share one PostgreSQL
// journal: each entry is leased to one at a time, and the lease outlasts
// every send made under it (Lease).
type Reconciler struct {
	// Journal is the store the entries are in.
	Journal Store
	// Client resends entries with its own credentials; a generated client
	// (or RunnerClient) that also implements idemrt.IntentLooker lets
	// unsafe entries be looked up.
	Client Client
	// Grace is how long after an entry settles the reconciler waits before
	// acting on it; zero (or less) means one minute. A lookup's "not found"
	// is trusted only after it, and only a Grace after any send the
	// reconciler made for the entry can have ended.
	Grace time.Duration
	// Interval is the time between passes of Run; zero (or less) means one
	// minute.
	Interval time.Duration
	// OnResolved, when set, is told of every entry the reconciler settles.
	OnResolved func(entry Entry, outcome Outcome)

	// Lease bounds the work on one entry; zero (or less) means two
	// minutes, and it is never shorter than Interval. Each send (or lookup)
	// the reconciler makes runs under a context that ends once Lease has
	// passed, and the entry stays leased to this reconciler for Grace
	// beyond that: no other reconciler works it while the send may be in
	// flight. An entry left for later is retried after Lease and Grace.
	// Raise it for operations whose calls take longer than two minutes.
	Lease time.Duration
	// Batch bounds the entries claimed per pass; zero (or less) means 100.
	Batch int
	// Owner names this reconciler in leases; empty means a random UUID,
	// chosen at the first pass.
	Owner string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Observer, when set, hears of every pass.
	Observer Observer
}

// ErrNoClient is returned by Run and Pass when Journal or Client is nil.
var ErrNoClient = errors.New("journal: a Reconciler needs a Journal and a Client")

// Run makes a pass every Interval until ctx ends, and returns ctx's error.
// A pass that fails (the database unreachable) is reported to the Observer
// and retried at the next interval.
func (r *Reconciler) Run(ctx context.Context) error {
	if r.Journal == nil || r.Client == nil {
		return ErrNoClient
	}
	t := time.NewTicker(r.interval())
	defer t.Stop()
	for {
		r.Pass(ctx)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (r *Reconciler) interval() time.Duration { return orDefault(r.Interval, time.Minute) }

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Reconciler) owner() string {
	if r.Owner == "" {
		r.Owner = uuid.NewString()
	}
	return r.Owner
}

func (r *Reconciler) grace() time.Duration { return orDefault(r.Grace, time.Minute) }

func (r *Reconciler) lease() time.Duration {
	return max(orDefault(r.Lease, 2*time.Minute), r.interval())
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

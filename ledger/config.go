// Package ledger is net/http middleware for the server side of the
// Idempotency-Key protocol (draft-ietf-httpapi-idempotency-key-header): a
// durable ledger unique on (caller, operation, key) that reserves a key
// atomically, runs the handler once inside a database transaction it shares
// with the handler, commits the ledger row's completion in that same
// transaction, and replays the stored response byte for byte afterwards.
//
// Stores live in sub-packages: sqlstore (database/sql, both dialects),
// sqlitestore and pgstore (openers); the outbox in ledger/outbox.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/idemgen/idemgen/ledger/internal/ctxtime"
)

// Config configures a Ledger. Store is required, and Caller unless every
// operation is wrapped by HandleRoute with a Route.Caller of its own (as a
// generated server does).
type Config struct {
	Store Store
	// Caller returns the tenant or principal the request acts for. Keys are
	// scoped by it: two callers using the same key never see each other's
	// rows. An error, or an empty identity, answers 401 without touching
	// the ledger.
	Caller func(*http.Request) (string, error)
	// KeyHeader names the key header; default "Idempotency-Key".
	KeyHeader string
	// Optional lets requests without a key through, unprotected but still in
	// a transaction; by default a missing key is answered 400.
	Optional bool
	// Lease bounds one execution: the handler's context is cancelled when
	// it ends, and a crashed execution's key becomes claimable after it.
	// Default 30s; above MaxTTL it is MaxTTL. It must not exceed TTL (the
	// default's included): New refuses it.
	Lease time.Duration
	// TTL is how long a key is kept for replay; default 24h. Clients must
	// stop resending a key well before it (their total deadline is shorter).
	// A "forever" TTL (math.MaxInt64, or anything above MaxTTL) is MaxTTL.
	TTL time.Duration
	// InProgressWait, when positive, makes a request whose key is held by a
	// live execution wait up to this long, re-reading every PollInterval
	// (default 50ms), before it answers 409.
	InProgressWait time.Duration
	PollInterval   time.Duration
	// BusyRetryAfter, when positive, is sent as Retry-After with a 409.
	BusyRetryAfter time.Duration
	// StoredHeaders are the response headers kept for replay, besides
	// Content-Type, Content-Encoding, Content-Language, Content-Disposition,
	// Location, ETag and Last-Modified. Headers of the connection or of one
	// sending (Content-Length, Date, Connection, Transfer-Encoding, ...) are
	// never kept.
	StoredHeaders []string
	// FingerprintHeaders names request headers that belong to the request's
	// identity, such as a header parameter that selects an account
	// (X-Account): the same key sent with another value of one of them is
	// another request (422), never the first one's result. Their values are
	// part of the fingerprint; changing the list changes the fingerprint of
	// every request, so keys in flight at the change answer 422.
	FingerprintHeaders []string
	// FingerprintCookies names cookies that belong to the request's
	// identity, as FingerprintHeaders does headers (a cookie parameter such
	// as tenant): the same key sent with another value is a 422. Names are
	// case-sensitive.
	FingerprintCookies []string
	// MaxBody bounds the request body read for the fingerprint; default 1 MiB.
	MaxBody int64
	// MaxStoredResponse bounds the response kept for replay (body plus the
	// stored headers); default 1 MiB. A larger answer still commits and is
	// sent once, in full, to the request that executed; the key is then
	// completed with a 500 problem (problem.ResponseNotStored) instead of the
	// answer, which every repeat receives, marked Idempotent-Replayed, and
	// the handler never runs again for that key.
	MaxStoredResponse int64
	// ReplayCache is how many completed keys the process keeps to answer
	// repeats without reading the store (default 1024; negative: none).
	// Only answers up to 16 KiB are kept, each until a minute before its
	// TTL ends: a completed key's answer never changes while it lives.
	ReplayCache int
	// Now and Sleep are the clock; tests inject them. Owner names an
	// execution (default: a random UUID drawn once per process, then a
	// sequence number).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Owner func() string
	// OnError, if set, receives store and handler failures that were
	// answered with a 5xx, a handler's panic as a *PanicError.
	OnError func(r *http.Request, err error)
}

// Ledger is the middleware; one Ledger serves every keyed operation.
type Ledger struct {
	cfg    Config
	stored []string
	// fpHeaders is Config.FingerprintHeaders canonical, sorted, unique.
	fpHeaders []string
	// fpCookies is Config.FingerprintCookies sorted, unique.
	fpCookies []string
	// replays holds completed rows read from the store; nil for none.
	replays *replayCache
	// recent holds the keys seen lately (recent.go).
	recent *recentKeys
	// readUnseen: a key not seen lately is read before it is reserved,
	// because the store's reservation does not settle a repeat itself
	// (neither a RepeatSettler nor a TxReserver).
	readUnseen bool
	// inTx is the store when it reserves inside the business transaction
	// (TxReserver), else nil.
	inTx TxReserver
	// routes numbers the routes (route.seq).
	routes atomic.Uint64
}

// MaxTTL is the longest TTL and Lease a Ledger uses: New clamps longer ones
// (a "forever" math.MaxInt64) to it. Stores keep times as int64 Unix
// nanoseconds, which end in April 2262; now plus an unclamped TTL past that
// wrapped to a date in the past and expired every key as it was written.
// A hundred years keeps every expiry representable until 2162.
const MaxTTL = 100 * 365 * 24 * time.Hour

var defaultStoredHeaders = []string{
	"Content-Type", "Content-Encoding", "Content-Language", "Content-Disposition", "Location", "ETag", "Last-Modified",
}

// unstorable are the response headers never kept for replay, whatever
// names them: they describe one connection or one sending (the length is
// the stored body's; the date is the replay's), not the answer.
var unstorable = []string{
	"Connection", "Content-Length", "Date", "Keep-Alive", "Proxy-Connection", "Trailer",
	"Transfer-Encoding", "Upgrade", ReplayedHeader,
}

// storedHeaders returns names canonical, sorted and once each, without
// the unstorable ones.
func storedHeaders(names []string) []string {
	return slices.DeleteFunc(canonicalHeaders(names), func(n string) bool { return slices.Contains(unstorable, n) })
}

// New validates cfg and fills in the defaults; a TTL or Lease above MaxTTL
// is MaxTTL.
func New(cfg Config) (*Ledger, error) {
	if cfg.Store == nil {
		return nil, errors.New("ledger: Config.Store is required")
	}
	setDefaults(&cfg)
	// Checked against the TTL in force, the default's too: a lease that
	// outlives its key lets a retry find the key expired and execute again.
	if cfg.Lease > cfg.TTL {
		return nil, fmt.Errorf("ledger: Lease %v must not exceed TTL %v", cfg.Lease, cfg.TTL)
	}
	stored := storedHeaders(append(slices.Clone(defaultStoredHeaders), cfg.StoredHeaders...))
	l := &Ledger{cfg: cfg, stored: stored, fpHeaders: canonicalHeaders(cfg.FingerprintHeaders),
		fpCookies: sortedNames(cfg.FingerprintCookies), replays: newReplayCache(cfg.ReplayCache),
		recent: newRecentKeys(), readUnseen: true}
	if settler, ok := cfg.Store.(RepeatSettler); ok && settler.ReserveSettlesRepeats() {
		l.readUnseen = false
	}
	if txr, ok := cfg.Store.(TxReserver); ok && txr.ReservesInTx() {
		l.inTx, l.readUnseen = txr, false
	}
	return l, nil
}

func setDefaults(c *Config) {
	if c.KeyHeader == "" {
		c.KeyHeader = "Idempotency-Key"
	}
	if c.Lease <= 0 {
		c.Lease = 30 * time.Second
	}
	if c.TTL <= 0 {
		c.TTL = 24 * time.Hour
	}
	c.Lease, c.TTL = min(c.Lease, MaxTTL), min(c.TTL, MaxTTL)
	if c.PollInterval <= 0 {
		c.PollInterval = 50 * time.Millisecond
	}
	if c.MaxBody <= 0 {
		c.MaxBody = 1 << 20
	}
	if c.ReplayCache == 0 {
		c.ReplayCache = defaultReplayCache
	}
	if c.MaxStoredResponse <= 0 {
		c.MaxStoredResponse = 1 << 20
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = ctxtime.Sleep
	}
	if c.Owner == nil {
		c.Owner = newOwner
	}
}

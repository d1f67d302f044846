package idemsrv

import (
	"context"
	"net/http"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// Option configures a generated server (NewServer's options).
type Option func(*config)

// config is what the options set.
type config struct {
	ledger   *ledger.Ledger
	noLedger bool
	// security is WithSecurity's handler; credScoped is
	// WithCredentialScopedKeys.
	security   any
	credScoped bool
	// maxInFlight is 0 for no limit; maxQueued is nil for the default.
	maxInFlight int
	maxQueued   *int
	maxBody     int64
	maxDepth    int
	bodyTimeout time.Duration
	authTimeout time.Duration
	busyAfter   time.Duration
	streamWrite time.Duration
	keepAlive   time.Duration
	// drain, when done, ends every stream (WithStreamDrain).
	drain context.Context
	now   func() time.Time
	// after starts the stream keep-alive's timer; tests replace it.
	after   func(time.Duration) (<-chan time.Time, func() bool)
	onError func(*http.Request, error)
}

// WithLedger runs every keyed operation through l: the key is reserved before
// the handler runs, the handler's answer is stored, and repeats get the
// stored answer marked Idempotent-Replayed: true. Keys are scoped by the
// credentials of the operation's security requirements.
func WithLedger(l *ledger.Ledger) Option {
	return func(c *config) { c.ledger = l }
}

// WithoutLedger starts a server whose keyed operations run without a
// ledger: the handler receives the key in its params and is on its own to
// execute each key once. It exists so that leaving the ledger out is a
// decision written in the code, never an omission.
func WithoutLedger() Option {
	return func(c *config) { c.noLedger = true }
}

// WithMaxInFlight admits at most n requests at once; the others are answered
// 503 with a Retry-After that spreads them over the time the backlog needs
// at the server's observed pace, so clients that honour it come back a few
// at a time instead of all at once. n <= 0 means no limit (the default).
func WithMaxInFlight(n int) Option {
	return func(c *config) { c.maxInFlight = max(n, 0) }
}

// WithMaxQueued lets at most n requests that find every slot of
// WithMaxInFlight busy wait for one, so that a freed slot goes straight to
// a request the server has already read instead of idling until the next
// arrives. A request waits at most half the measured service time (and
// none before a request has ended), then is refused like any other. The
// default is a quarter of WithMaxInFlight's n, at least 1; 0 refuses at
// once.
func WithMaxQueued(n int) Option {
	return func(c *config) { n = max(n, 0); c.maxQueued = &n }
}

// WithMaxBody bounds a request body (default 1 MiB; 413 above it).
func WithMaxBody(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBody = n
		}
	}
}

// WithBodyLimits bounds a JSON body's nesting depth (default 64; the
// runtime's codec decodes at most idemrt.MaxJSONDepth levels whatever the
// bound) and the time its reading may take (default 30s; 0 keeps the
// default).
func WithBodyLimits(depth int, timeout time.Duration) Option {
	return func(c *config) {
		if depth > 0 {
			c.maxDepth = depth
		}
		if timeout > 0 {
			c.bodyTimeout = timeout
		}
	}
}

// WithAuthTimeout bounds the time WithSecurity's handler may take to
// authenticate one request (default 10s; 0 keeps the default).
// Authentication runs before the body is read, so the server cannot tell
// that the client has left while it waits: without a bound, a method that
// hangs (an identity provider that does not answer) held its
// WithMaxInFlight slot for ever. When the time passes, the method's
// context is cancelled and the request is answered 503
// authentication-timeout with Retry-After, its slot freed at once, whether
// or not the method has returned; nothing else runs.
func WithAuthTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.authTimeout = d
		}
	}
}

// WithClock sets the clock the overload estimate and the stream keep-alive
// read; tests inject one.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// defaultAuthTimeout is WithAuthTimeout's default: far above what an
// identity provider takes to answer, far below a client's patience.
const defaultAuthTimeout = 10 * time.Second

func newConfig(opts []Option) config {
	c := config{maxBody: 1 << 20, maxDepth: 64, bodyTimeout: 30 * time.Second, authTimeout: defaultAuthTimeout,
		busyAfter: time.Second, streamWrite: defaultStreamWrite, keepAlive: defaultKeepAlive, now: time.Now, after: realTimer}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithOnError receives the errors a handler returned that were answered
// with a 500 (their text never reaches the client), for logging, every
// handler's panic as a *ledger.PanicError (a keyed operation's under the ledger
// too), and the ledger's own 5xx failures (a store that failed, a lease
// that ran out). Without it a panic outside the ledger is written to the
// standard logger, as net/http would.
func WithOnError(f func(r *http.Request, err error)) Option {
	return func(c *config) { c.onError = f }
}

package idemsrv

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/ledger"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// ErrNoLedger is returned (wrapped, naming the operations) by New for a spec
// with keyed operations and neither WithLedger nor WithoutLedger.
var ErrNoLedger = errors.New("idemsrv: keyed operations need idemsrv.WithLedger(l) or idemsrv.WithoutLedger()")

// Engine is the runtime of one generated server: its options, its ledger
// and its overload limit. Generated code makes one in NewServer.
type Engine struct {
	cfg  config
	shed *shedder
}

// New checks the options against the operations the spec keys (their
// operation IDs): a keyed operation without a ledger does not start
// unless WithoutLedger says so.
func New(keyed []string, opts ...Option) (*Engine, error) {
	cfg := newConfig(opts)
	switch {
	case cfg.ledger != nil && cfg.noLedger:
		return nil, errors.New("idemsrv: WithLedger and WithoutLedger were both given")
	case len(keyed) > 0 && cfg.ledger == nil && !cfg.noLedger:
		return nil, fmt.Errorf("%w (keyed: %s)", ErrNoLedger, strings.Join(keyed, ", "))
	}
	e := &Engine{cfg: cfg}
	if cfg.maxInFlight > 0 {
		e.shed = newShedder(cfg.maxInFlight, cfg.now)
	}
	return e, nil
}

// Route is what the spec says about one operation that the server enforces
// before its handler runs.
type Route struct {
	// Op is the client's contract of the operation (ID, method, path,
	// safety, key header).
	Op *idemrt.Operation
	// Credentials are where the operation's security schemes carry
	// credentials; a keyed operation's keys are scoped by their hash.
	Credentials []Credential
	// Anonymous: the operation may be called without credentials (it has
	// no security requirement, or an empty one).
	Anonymous bool
	// Preconditions are the required precondition headers (If-Match): a
	// request without them is answered 428 before anything runs.
	Preconditions []string
	// FingerprintHeaders are the operation's header parameters: part of a
	// keyed request's identity.
	FingerprintHeaders []string
	// Declared are the non-2xx statuses the operation declares; Default is
	// set when it declares a default response (any status then).
	Declared idemrt.StatusSet
	Default  bool
	// ErrorMediaTypes are the JSON media types the operation declares for
	// its error answers where they are not application/json
	// (application/problem+json, say), by exact status, by class (4 for
	// "4XX") or 0 for the default response.
	ErrorMediaTypes map[int]string
}

// Handle registers serve on mux under pattern (an http.ServeMux pattern,
// "POST /orders/{p0}"), behind the route's precondition check and, for a
// keyed operation with a ledger, the ledger. A pattern the mux refuses (two
// paths of the spec that overlap) is an error, not a panic.
func (e *Engine) Handle(mux *http.ServeMux, pattern string, rt Route, serve http.HandlerFunc) (err error) {
	var h http.Handler = serve
	if rt.Op.Safety == idemrt.Keyed && e.cfg.ledger != nil {
		h = e.cfg.ledger.HandleRoute(ledger.Route{
			Operation: rt.Op.ID, KeyHeader: rt.Op.KeyHeader, Caller: rt.caller,
			FingerprintHeaders: rt.FingerprintHeaders, BusyRetryAfter: e.cfg.busyAfter,
		}, h)
	}
	if len(rt.Preconditions) > 0 {
		h = requirePreconditions(rt.Preconditions, h)
	}
	h = withQueryCredentials(rt, h)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("idemsrv: operation %s cannot be routed as %q: %v", rt.Op.ID, pattern, p)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

// Wrap returns the server's root handler: the overload limit
// (WithMaxInFlight), then mux, whose own refusals (no route: 404; a route
// for other methods: 405 with Allow) are answered as problems too.
func (e *Engine) Wrap(mux *http.ServeMux) http.Handler {
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			unrouted(w, r, mux)
			return
		}
		mux.ServeHTTP(w, r)
	})
	if e.shed != nil {
		h = e.shed.wrap(h)
	}
	return h
}

// NotImplemented answers an operation the generated server does not serve
// yet (a stream, a download, a multipart body): 501, saying so.
func NotImplemented(op string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		WriteProblem(w, http.StatusNotImplemented, ProblemNotImplemented,
			fmt.Sprintf("operation %s is not served by this generated server", op))
	}
}

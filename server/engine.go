package idemsrv

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/ledger"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/server/internal/shed"
)

// ErrNoLedger is returned (wrapped, naming the operations) by New for a spec
// with keyed operations and neither WithLedger nor WithoutLedger.
var ErrNoLedger = errors.New("idemsrv: keyed operations need idemsrv.WithLedger(l) or idemsrv.WithoutLedger()")

// Engine is the runtime of one generated server: its options, its ledger
// and its overload limit. Generated code makes one in NewServer.
type Engine struct {
	cfg    config
	shed   *shed.Shedder
	router *router
	// schemes are the WithSecurity handler's methods by scheme name (Secure).
	schemes map[string]Scheme
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
	e := &Engine{cfg: cfg, router: newRouter()}
	if cfg.maxInFlight > 0 {
		e.shed = shed.New(cfg.maxInFlight, cfg.now)
		if cfg.maxQueued != nil {
			e.shed.SetMaxQueued(*cfg.maxQueued)
		}
	}
	return e, nil
}

// Route is what the spec says about one operation that the server enforces
// before its handler runs.
type Route struct {
	// Op is the client's contract of the operation (ID, method, path,
	// safety, key header).
	Op *idemrt.Operation
	// Query is the fixed query string of the operation's path key
	// ("beta=true" for "/responses?beta=true"): the route takes only the
	// requests that carry its pairs.
	Query string
	// Credentials are where the operation's security schemes carry
	// credentials; a keyed operation's keys are scoped by their hash.
	Credentials []Credential
	// Anonymous: the operation may be called without credentials (it has
	// no security requirement, or an empty one).
	Anonymous bool
	// Security are the operation's alternative security requirements in
	// the document's order, each the names of the schemes it applies
	// together: what WithSecurity's handler checks.
	Security [][]string
	// Preconditions are the required precondition headers (If-Match): a
	// request without them is answered 428 before anything runs.
	Preconditions []string
	// FingerprintHeaders are the operation's header parameters: part of a
	// keyed request's identity.
	FingerprintHeaders []string
	// FingerprintCookies are the operation's cookie parameters: part of a
	// keyed request's identity, as its header parameters are.
	FingerprintCookies []string
	// StoredHeaders are the response headers the operation declares: the
	// ledger keeps them, so that a replayed answer carries them too.
	StoredHeaders []string
	// Declared are the non-2xx statuses the operation declares; Default is
	// set when it declares a default response (any status then).
	Declared idemrt.StatusSet
	Default  bool
	// ErrorMediaTypes are the JSON media types the operation declares for
	// its error answers where they are not application/json
	// (application/problem+json, say), by exact status, by class (4 for
	// "4XX") or 0 for the default response.
	ErrorMediaTypes map[int]string
	// Stream is set for an operation whose answer is a stream of events
	// (ServeStream). Such an operation never runs through the ledger,
	// which cannot store a stream and replay it; a keyed one still needs
	// a well-formed key, which the handler receives.
	Stream *StreamFormat
}

// Handle routes rt.Op's method and path template to serve, behind the
// route's precondition check and, for a keyed operation with a ledger, the
// ledger (a stream, Route.Stream, only has its key's form checked), all
// under the body's read deadline (WithBodyLimits). A
// template another operation has with the same method (up to parameter
// names), or one the router cannot route, is a *RouteError.
func (e *Engine) Handle(rt Route, serve http.HandlerFunc) error {
	return e.router.handle(rt.Op.ID, rt.Op.Method, rt.template(), e.bodyDeadline(e.guard(rt, serve)))
}

// guard puts serve behind what the route checks: the credentials
// (WithSecurity), the required preconditions and the key (the ledger, or
// for a stream the key's form alone), in that order.
func (e *Engine) guard(rt Route, serve http.HandlerFunc) http.Handler {
	var h http.Handler = serve
	switch {
	case rt.Op.Safety == idemrt.Keyed && rt.Stream != nil:
		h = requireKey(rt.Op.KeyHeader, h)
	case rt.Op.Safety == idemrt.Keyed && e.cfg.ledger != nil:
		h = e.cfg.ledger.HandleRoute(ledger.Route{
			Operation: rt.Op.ID, KeyHeader: rt.Op.KeyHeader, Caller: e.caller(rt),
			FingerprintHeaders: rt.FingerprintHeaders, FingerprintCookies: rt.FingerprintCookies,
			Credentials: rt.ledgerCredentials(), StoredHeaders: rt.StoredHeaders,
			BusyRetryAfter: e.cfg.busyAfter, OnError: e.ledgerError(),
		}, h)
	}
	if len(rt.Preconditions) > 0 {
		h = requirePreconditions(rt.Preconditions, h)
	}
	return withQueryCredentials(rt, e.authenticate(rt, h))
}

// Unserved routes rt to a 501 answer: an operation the generated server
// does not serve yet still owns its path, so it is not answered 404.
func (e *Engine) Unserved(rt Route) error {
	return e.router.handle(rt.Op.ID, rt.Op.Method, rt.template(), NotImplemented(rt.Op.ID))
}

// template is the route's path template with its fixed query.
func (rt Route) template() string {
	if rt.Query == "" {
		return rt.Op.Path
	}
	return rt.Op.Path + "?" + rt.Query
}

// Root returns the server's root handler: the overload limit
// (WithMaxInFlight), then the router, whose own refusals (no template
// matches: 404; templates for other methods: 405 with Allow) are problems;
// a panic below them is a 500 problem and a *ledger.PanicError for WithOnError.
func (e *Engine) Root() http.Handler {
	var h http.Handler = e.router
	if e.shed != nil {
		h = e.shed.Wrap(h)
	}
	return e.recovered(h)
}

// NotImplemented answers an operation the generated server does not serve
// yet (a download, a multipart body): 501, saying so.
func NotImplemented(op string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		problem.Write(w, http.StatusNotImplemented, problem.NotImplemented,
			fmt.Sprintf("operation %s is not served by this generated server", op))
	}
}

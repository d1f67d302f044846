package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/runtime/wire"
)

// Route is one webhook a receiver accepts: its name (its key under
// the document's webhooks, the last path segment it is delivered to), the
// event type its payload's type member is pinned to, and its typed handler.
// Generated code makes them with NewRoute.
type Route struct {
	name, eventType string
	// bind decodes the payload and returns the call of the handler.
	bind func(body []byte) (func(context.Context) error, error)
}

// NewRoute routes the webhook name (and, on the receiver's root,
// the payload type eventType; "" for none) to handle, which receives the
// payload decoded as T by the runtime's JSON codec (bounded in depth,
// idemrt.MaxJSONDepth).
func NewRoute[T any](name, eventType string, handle func(ctx context.Context, body T) error) Route {
	return Route{name: name, eventType: eventType, bind: func(body []byte) (func(context.Context) error, error) {
		var v T
		if err := wire.UnmarshalDeclared(body, &v); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error { return handle(ctx, v) }, nil
	}}
}

// Receiver is the http.Handler of a generated webhook receiver: it
// verifies a delivery's signature on the raw body, routes it, decodes it,
// and runs its handler at most once per delivery id.
type Receiver struct {
	cfg    config
	byName map[string]*Route
	byType map[string]*Route
	// caller is the ledger ID.Caller of this receiver's deliveries, held
	// by claim against other receivers on the same store.
	caller string
	claim  *ledger.ScopeClaim
}

// NewReceiver returns a receiver for routes. It refuses to start
// without a signature scheme (ErrNoVerification) or a ledger
// (ErrNoLedger) unless the options leave them out explicitly.
func NewReceiver(routes []Route, opts ...Option) (*Receiver, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	rc := &Receiver{cfg: cfg, byName: map[string]*Route{}, byType: map[string]*Route{}}
	for i := range routes {
		rt := &routes[i]
		if rt.name == "" || rc.byName[rt.name] != nil {
			return nil, fmt.Errorf("%w: webhook name %q is empty or declared twice", ErrConfig, rt.name)
		}
		rc.byName[rt.name] = rt
		if rt.eventType == "" {
			continue
		}
		if rc.byType[rt.eventType] != nil {
			return nil, fmt.Errorf("%w: event type %q is declared twice", ErrConfig, rt.eventType)
		}
		rc.byType[rt.eventType] = rt
	}
	if err := rc.claimScope(); err != nil {
		return nil, err
	}
	return rc, nil
}

// claimScope claims the receiver's dedupe scope in its ledger's store:
// "webhook", or "webhook:<name>" under WithEndpoint.
func (rc *Receiver) claimScope() error {
	if rc.cfg.ledger == nil {
		return nil
	}
	rc.caller = "webhook"
	if rc.cfg.endpoint != "" {
		rc.caller += ":" + rc.cfg.endpoint
	}
	claim, err := rc.cfg.ledger.ClaimDeliveryScope(rc.caller)
	switch {
	case errors.Is(err, ledger.ErrDeliveryScope) && rc.cfg.endpoint == "":
		return fmt.Errorf("%w: another receiver records its deliveries in this ledger's store without an endpoint name: name each with WithEndpoint: %w", ErrConfig, err)
	case errors.Is(err, ledger.ErrDeliveryScope):
		return fmt.Errorf("%w: another receiver on this ledger's store is the endpoint %q: give each its own WithEndpoint name: %w", ErrConfig, rc.cfg.endpoint, err)
	case err != nil:
		return fmt.Errorf("%w: WithEndpoint(%q): %w", ErrConfig, clip(rc.cfg.endpoint), err)
	}
	rc.claim = claim
	return nil
}

// Close releases the receiver's dedupe scope, so that a receiver built to
// replace it (a configuration reload) may take the same endpoint name in
// the same process. It does not stop rc: stop routing to it first.
func (rc *Receiver) Close() error {
	if rc.claim != nil {
		rc.claim.Release()
	}
	return nil
}

// ServeHTTP answers one delivery: 204 once applied (and to every repeat,
// marked Idempotent-Replayed: true), a problem otherwise.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		problem.Write(w, http.StatusMethodNotAllowed, problem.MethodNotAllowed, "webhooks are delivered with POST")
		return
	}
	body, ok := rc.readBody(w, r)
	if !ok {
		return
	}
	id, ok := rc.verify(w, r, body)
	if !ok {
		return
	}
	signed := body
	if isFormMedia(r.Header.Get("Content-Type")) {
		var err error
		if body, err = formPayload(body); err != nil {
			problem.Write(w, http.StatusBadRequest, problem.WebhookPayload, err.Error())
			return
		}
	}
	env := readEnvelope(body)
	rt := rc.route(r, env)
	if rt == nil {
		problem.Write(w, http.StatusNotFound, problem.WebhookUnknown, "no webhook of this receiver is named by the path, X-GitHub-Event and the payload's action, or the payload's type")
		return
	}
	if why := rc.mismatch(r, env, rt); why != "" {
		problem.Write(w, http.StatusBadRequest, problem.WebhookMismatch, why)
		return
	}
	call, err := rt.bind(body)
	if err != nil {
		problem.Write(w, http.StatusBadRequest, problem.WebhookPayload, fmt.Sprintf("the %s payload: %v", rt.name, err))
		return
	}
	rc.run(w, r, rc.deliveryID(id, r.Header, env), signed, call)
}

// verify checks the signature unless the receiver was built without one,
// and returns the delivery id the scheme's headers carry.
func (rc *Receiver) verify(w http.ResponseWriter, r *http.Request, body []byte) (string, bool) {
	if rc.cfg.scheme == nil {
		return "", true
	}
	id, err := rc.cfg.scheme.verify(r.Header, body, rc.cfg.now(), rc.cfg.tolerance)
	switch {
	case err == nil:
		return id, true
	case isErr(err, ErrHeaders):
		problem.Write(w, http.StatusBadRequest, problem.WebhookHeaders, err.Error())
	case isErr(err, ErrStale):
		problem.Write(w, http.StatusUnauthorized, problem.WebhookStale, err.Error())
	case isErr(err, ErrUnsigned):
		problem.Write(w, http.StatusUnauthorized, problem.WebhookUnsigned, err.Error())
	default:
		problem.Write(w, http.StatusUnauthorized, problem.WebhookSignature, err.Error())
	}
	return "", false
}

// route picks the webhook: the one the path's last segment names; on the
// root, the one X-GitHub-Event (and the payload's action) names, else the
// one the payload's type is pinned to. nil is "no such webhook".
func (rc *Receiver) route(r *http.Request, env envelope) *Route {
	p := r.URL.Path
	last := p[strings.LastIndexByte(p, '/')+1:]
	if rt := rc.byName[last]; rt != nil {
		return rt
	}
	if !rc.isRoot(p) {
		return nil
	}
	if ev := r.Header.Get("X-GitHub-Event"); ev != "" {
		return rc.githubRoute(ev, env.Action)
	}
	if env.Type != "" {
		return rc.byType[env.Type]
	}
	return nil
}

// githubRoute is the webhook of a GitHub delivery of event ev (the
// X-GitHub-Event header) whose payload's action member is action ("" when
// it has none). GitHub's OpenAPI description names its webhooks
// "<event>-<action>" in kebab case: pull_request with action
// auto_merge_disabled is "pull-request-auto-merge-disabled", and an event
// without actions is its own name ("push"). A webhook named after the
// event alone ("pull_request" or "pull-request") takes the actions no
// webhook names, and a payload type pinned to the event name comes last.
func (rc *Receiver) githubRoute(ev, action string) *Route {
	kebab := strings.ReplaceAll(ev, "_", "-")
	if action != "" {
		if rt := rc.byName[kebab+"-"+strings.ReplaceAll(action, "_", "-")]; rt != nil {
			return rt
		}
	}
	if rt := rc.byName[ev]; rt != nil {
		return rt
	}
	if rt := rc.byName[kebab]; rt != nil {
		return rt
	}
	return rc.byType[ev]
}

func (rc *Receiver) isRoot(p string) bool {
	if p == "" || strings.HasSuffix(p, "/") {
		return true
	}
	for _, root := range rc.cfg.roots {
		if p == root {
			return true
		}
	}
	return false
}

// deliveryID is the id the scheme names (its header, or for Stripe the
// event's id member); unverified, the first of webhook-id,
// X-GitHub-Delivery and the payload's id.
func (rc *Receiver) deliveryID(fromScheme string, h http.Header, env envelope) string {
	if _, stripe := rc.cfg.scheme.(stripeScheme); stripe {
		return env.ID
	}
	if rc.cfg.scheme != nil {
		return fromScheme
	}
	for _, id := range []string{h.Get("Webhook-Id"), h.Get("X-GitHub-Delivery"), env.ID} {
		if id != "" {
			return id
		}
	}
	return ""
}

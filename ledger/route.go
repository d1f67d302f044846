package ledger

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Route describes one keyed operation for HandleRoute. Its zero fields take
// the Ledger's Config: a generated server fills them from the spec, so that
// each operation reads its own key header and scopes keys by the
// credentials its security requirements name.
type Route struct {
	// Operation is the operation name (the spec's operationId).
	Operation string
	// KeyHeader overrides Config.KeyHeader for this operation.
	KeyHeader string
	// Caller overrides Config.Caller for this operation.
	Caller func(*http.Request) (string, error)
	// FingerprintHeaders are added to Config.FingerprintHeaders for this
	// operation (its header parameters, say).
	FingerprintHeaders []string
	// FingerprintCookies are added to Config.FingerprintCookies for this
	// operation (its cookie parameters, say).
	FingerprintCookies []string
	// Credentials are the request parameters that carry the operation's
	// credentials (the header, query parameter or cookie of an API key,
	// the Authorization header): they are never part of the fingerprint,
	// wherever they travel and whatever FingerprintHeaders and
	// FingerprintCookies (the Config's or the Route's) say, so that a
	// credential rotated between two attempts of one intent finds its
	// stored answer instead of 422. Who the caller is belongs to Caller.
	Credentials []Credential
	// StoredHeaders are response headers kept for replay besides the
	// Ledger's (the operation's declared response headers, say), so a
	// replayed answer carries them as the first did.
	StoredHeaders []string
	// BusyRetryAfter overrides Config.BusyRetryAfter for this operation.
	BusyRetryAfter time.Duration
	// OnError, if set, receives this operation's failures as
	// Config.OnError does (a handler's panic as a *PanicError), besides
	// it: a generated server hands them to its own error hook.
	OnError func(r *http.Request, err error)
}

// Where a Credential travels.
const (
	CredentialInHeader = "header"
	CredentialInQuery  = "query"
	CredentialInCookie = "cookie"
)

// Credential names one request parameter that carries a credential: In is
// CredentialInHeader, CredentialInQuery or CredentialInCookie, and Name the
// header (any case), the query parameter's decoded name, or the cookie
// name.
type Credential struct {
	In, Name string
}

// route is a Route with the Config's defaults filled in.
type route struct {
	// seq numbers the route within its Ledger: two routes may fingerprint
	// one request differently, so the digests of recentKeys include it.
	seq       uint64
	operation string
	keyHeader string
	caller    func(*http.Request) (string, error)
	fpHeaders []string
	fpCookies []string
	// credQuery are the query parameters left out of the fingerprint's
	// request target (Route.Credentials).
	credQuery      []string
	stored         []string
	busyRetryAfter time.Duration
	onError        func(*http.Request, error)
}

// HandleRoute wraps h as the keyed operation rt describes; see Handle. It
// panics, as Handle does, on an operation name no store can keep, and when
// neither rt nor Config names a Caller.
func (l *Ledger) HandleRoute(rt Route, h http.Handler) http.Handler {
	op := rt.Operation
	if op == "" || len(op) > MaxKeyLen || !utf8.ValidString(op) || strings.IndexByte(op, 0) >= 0 {
		panic(fmt.Sprintf("ledger: invalid operation name %q", op))
	}
	r := &route{seq: l.routes.Add(1), operation: op, keyHeader: l.cfg.KeyHeader, caller: l.cfg.Caller,
		fpHeaders: l.fpHeaders, fpCookies: l.fpCookies, stored: l.stored, busyRetryAfter: l.cfg.BusyRetryAfter,
		onError: rt.OnError}
	if rt.KeyHeader != "" {
		r.keyHeader = rt.KeyHeader
	}
	// Canonical once, so that reading and echoing it skip the work.
	r.keyHeader = http.CanonicalHeaderKey(r.keyHeader)
	if rt.Caller != nil {
		r.caller = rt.Caller
	}
	if r.caller == nil {
		panic(fmt.Sprintf("ledger: operation %q has no Caller (set Config.Caller or Route.Caller)", op))
	}
	if rt.BusyRetryAfter > 0 {
		r.busyRetryAfter = rt.BusyRetryAfter
	}
	if len(rt.FingerprintHeaders) > 0 {
		r.fpHeaders = canonicalHeaders(append(slices.Clone(l.fpHeaders), rt.FingerprintHeaders...))
	}
	if len(rt.StoredHeaders) > 0 {
		r.stored = storedHeaders(append(slices.Clone(l.stored), rt.StoredHeaders...))
	}
	if len(rt.FingerprintCookies) > 0 {
		r.fpCookies = sortedNames(append(slices.Clone(l.fpCookies), rt.FingerprintCookies...))
	}
	r.leaveOut(rt.Credentials)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		l.serve(w, req, r, h)
	})
}

// leaveOut takes the credentials out of the route's fingerprint: their
// headers and cookies from the names it hashes, their query parameters into
// credQuery, which requestTarget drops.
func (r *route) leaveOut(creds []Credential) {
	for _, c := range creds {
		switch c.In {
		case CredentialInHeader:
			name := http.CanonicalHeaderKey(c.Name)
			r.fpHeaders = slices.DeleteFunc(slices.Clone(r.fpHeaders), func(h string) bool { return h == name })
		case CredentialInCookie:
			r.fpCookies = slices.DeleteFunc(slices.Clone(r.fpCookies), func(n string) bool { return n == c.Name })
		case CredentialInQuery:
			r.credQuery = append(r.credQuery, c.Name)
		}
	}
}

// canonicalHeaders returns names canonical, sorted and once each: the form
// the fingerprint hashes them in.
func canonicalHeaders(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = http.CanonicalHeaderKey(n)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sortedNames returns names sorted and once each, as given: cookie names
// are case-sensitive.
func sortedNames(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

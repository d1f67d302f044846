package runtime

import (
	"context"
	"net/http"
	"slices"
	"time"
)

// Safety says whether an operation may be resent after an unknown outcome.
type Safety int

const (
	// Unsafe operations are never resent once the request may have reached
	// the server; an unknown outcome ends the call with ErrOutcomeUnknown.
	Unsafe Safety = iota
	// Idempotent operations repeat with the same intended effect.
	Idempotent
	// Keyed operations are made safe by an idempotency key header; every
	// attempt of one call sends the same key and the same body bytes.
	Keyed
)

// String names the safety level.
func (s Safety) String() string {
	switch s {
	case Idempotent:
		return "idempotent"
	case Keyed:
		return "keyed"
	default:
		return "unsafe"
	}
}

// StatusSet is a set of HTTP statuses: exact codes plus whole classes.
type StatusSet struct {
	// Codes are exact statuses.
	Codes []int
	// Classes are leading digits: 5 means every 5xx status.
	Classes []int
}

// Contains reports whether status is in the set.
func (s StatusSet) Contains(status int) bool {
	for _, c := range s.Codes {
		if c == status {
			return true
		}
	}
	for _, c := range s.Classes {
		if status/100 == c {
			return true
		}
	}
	return false
}

// DefaultRetryable is the set an operation gets when its spec says nothing:
// 408, 429, 502, 503 and 504.
var DefaultRetryable = StatusSet{Codes: []int{
	http.StatusRequestTimeout,
	http.StatusTooManyRequests,
	http.StatusBadGateway,
	http.StatusServiceUnavailable,
	http.StatusGatewayTimeout,
}}

// Operation is the retry contract of one API operation. Generated clients
// declare one package-level Operation per method so that the behaviour is
// visible and pinned by golden files.
type Operation struct {
	// ID names the operation, uniquely within its client, in attempt
	// records, errors, journal entries (JournalEntry.Operation) and the
	// server's ledger: the operationId ("createPayment"), or the method and
	// path ("POST /cluster/widgets") of an operation whose operationId
	// another operation shares (docs/generator.md, "Operation identity").
	ID string
	// Method and Path are the HTTP method and path template, for records.
	Method string
	Path   string
	Safety Safety
	// KeyHeader is the header carrying the idempotency key of a Keyed
	// operation ("Idempotency-Key").
	KeyHeader string
	// Retryable lists the statuses worth retrying.
	Retryable StatusSet
	// Redirects lists the 3xx statuses the operation declares as answers
	// (a login's 302): such a response is handed back as it is, never
	// followed. Other redirects are followed.
	Redirects StatusSet
	// Security names the security schemes (components.securitySchemes keys)
	// that any of the operation's security requirements lists. Nil means the
	// operation sends no credentials: generated authentication options apply
	// only to operations that list their scheme.
	Security []string
	// KeyTTL is how long the server keeps a Keyed operation's key
	// (x-idempotent's ttl); 0 means DefaultKeyTTL. A reconciler resends a
	// journal entry only within it.
	KeyTTL time.Duration
	// HeaderParams, QueryParams and CookieParams name the header, query and
	// cookie parameters the operation declares, less those a security
	// scheme names (an apiKey's header, query or cookie): the only ones a
	// Journal keeps the values of (see JournalEntry). Generated clients set
	// them; nil declares none, so an Operation written by hand (or by an
	// older idemgen) keeps no parameter's value, and an entry of a request
	// that has any is not resent.
	HeaderParams []string
	QueryParams  []string
	CookieParams []string
}

// Uses reports whether the operation may send the credentials of the named
// security scheme. A nil Operation uses none, so credentials never leak to a
// request whose operation is unknown.
func (o *Operation) Uses(scheme string) bool {
	return o != nil && slices.Contains(o.Security, scheme)
}

// OperationOf returns the operation of the call whose attempt ctx belongs
// to, or nil outside a call. Request editors use it to act per operation
// (the generated authentication options skip operations that do not list
// their scheme). It does not allocate.
func OperationOf(ctx context.Context) *Operation {
	if c, ok := ctx.Value(engineKey{}).(*call); ok {
		return c.op
	}
	return nil
}

// ReplayedHeader is the response header a server sets to "true" on the
// stored answer of a key's first execution. A keyed operation's replayed 409
// or 422 is that business answer, returned as is, not read as "in progress"
// or "key reused".
const ReplayedHeader = "Idempotent-Replayed"

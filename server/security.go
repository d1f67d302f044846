package idemsrv

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrForbidden, wrapped by the error a SecurityHandler method returns,
// answers the request 403 (the credentials are good, but not for this
// operation) instead of 401.
var ErrForbidden = errors.New("idemsrv: forbidden")

// ErrNoSecurity is returned (wrapped, naming the operations) by a generated
// NewServer whose document has keyed operations under a security
// requirement, a ledger, and neither WithSecurity nor
// WithCredentialScopedKeys: without a principal the ledger could only scope
// keys by the credential's bytes, which change when a token is refreshed.
var ErrNoSecurity = errors.New("idemsrv: keyed operations under a security requirement need " +
	"idemsrv.WithSecurity(h) or idemsrv.WithCredentialScopedKeys()")

// MaxPrincipalLen bounds the principal a SecurityHandler returns, so that
// the ledger can store it as the caller of a key (docs/ledger.md).
const MaxPrincipalLen = 1000

// BearerCredential is the token of an HTTP bearer, OAuth 2 or OpenID
// Connect scheme (Authorization: Bearer <token>).
type BearerCredential struct {
	Token string
}

// BasicCredential is the pair of an HTTP basic scheme (RFC 7617).
type BasicCredential struct {
	Username, Password string
}

// APIKeyCredential is the value of an apiKey scheme, with where it was
// found: In is InHeader, InQuery or InCookie, Name the header, parameter or
// cookie name the scheme declares.
type APIKeyCredential struct {
	Name, In, Value string
}

// TLSCredential is the client certificate of a mutualTLS scheme. Certificate
// is the leaf the client presented and Chain everything it presented, leaf
// first; VerifiedChains are the chains the TLS server verified (empty when
// its tls.Config does not verify client certificates: the method must then
// verify Certificate itself).
type TLSCredential struct {
	Certificate    *x509.Certificate
	Chain          []*x509.Certificate
	VerifiedChains [][]*x509.Certificate
}

// HTTPCredential is the Authorization header of an HTTP scheme other than
// basic and bearer: Scheme as the request spelled it, and the credentials
// after it.
type HTTPCredential struct {
	Scheme, Credentials string
}

// WithSecurity authenticates every request of an operation under a
// security requirement before the ledger and the handler run: h is the
// generated package's SecurityHandler, whose method for each scheme maps a
// credential to the principal it belongs to. The principal scopes the
// operation's keys (a refreshed token of the same principal finds its
// key's stored answer) and is Principal(ctx) in the handler. NewServer
// refuses an h that is not its package's SecurityHandler.
func WithSecurity(h any) Option {
	return func(c *config) { c.security = h }
}

// WithCredentialScopedKeys starts a server whose document has keyed
// operations under a security requirement without WithSecurity: nothing is
// authenticated by the server, and keys are scoped by a SHA-256 of the
// credentials the request carries. A credential that changes between two
// attempts of one intent (a refreshed token) puts the retry in another
// scope, where its key is new and the operation runs again.
func WithCredentialScopedKeys() Option {
	return func(c *config) { c.credScoped = true }
}

// principalKey holds, in a request's context, the principal WithSecurity's
// handler returned.
type principalKey struct{}

// Principal is the principal the SecurityHandler returned for the request
// whose context is ctx; "" for an anonymous request (an operation that
// allows one, and a request without credentials) and for a server without
// WithSecurity.
func Principal(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// principalScope prefixes a principal as the ledger's caller, so that it
// never meets the anonymous scope or a credential hash ("cred:").
const principalScope = "principal:"

// checkPrincipal refuses a principal the ledger could not keep as a caller.
func checkPrincipal(p string) error {
	switch {
	case p == "":
		return errors.New("no scheme of the requirement named a principal")
	case len(p) > MaxPrincipalLen:
		return fmt.Errorf("the principal is longer than %d bytes", MaxPrincipalLen)
	case !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0:
		return errors.New("the principal is not valid UTF-8 text without NUL")
	}
	return nil
}

package server

import (
	"context"
	"errors"
	"strings"

	"github.com/idemgen/idemgen/examples/payments/client"
	idemsrv "github.com/idemgen/idemgen/server"
)

// Tokens is the example's client.SecurityHandler, given to the generated
// server with idemsrv.WithSecurity: it maps a bearer token to the tenant it
// was issued to. A token is the tenant's name, alone or followed by "." and
// the session that issued it ("alice", "alice.2"), so a token refreshed
// between two attempts of one order names the same tenant and the retry
// finds the order's stored answer (docs/server.md, "Authentication"). A
// real deployment verifies the token here (a JWT's signature and expiry)
// and returns its subject.
type Tokens struct{}

var _ client.SecurityHandler = Tokens{}

// errBadToken is refused as 401; its text never reaches the client.
var errBadToken = errors.New("payments: the bearer token names no tenant")

// BearerAuth returns the tenant of c's token.
func (Tokens) BearerAuth(_ context.Context, _ string, c idemsrv.BearerCredential) (string, error) {
	tenant, _, _ := strings.Cut(c.Token, ".")
	if !validTenant(tenant) {
		return "", errBadToken
	}
	return tenant, nil
}

// validTenant: 1 to 64 ASCII letters, digits, '-' and '_'.
func validTenant(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}

// tenantOf is the tenant Tokens found for the request of ctx.
func tenantOf(ctx context.Context) string { return idemsrv.Principal(ctx) }

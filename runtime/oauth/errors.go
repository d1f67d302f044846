package oauth

import (
	"errors"
	"fmt"

	"golang.org/x/oauth2"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// ErrTokenEndpoint: no access token could be had for the call: the token
// endpoint failed (a network error, a non-2xx answer, a body that is no
// token) or a TokenSource returned an error. It wraps
// idemrt.ErrUnauthorized, so errors.Is(err, idemrt.ErrUnauthorized) holds
// for such a call too; the error is a *TokenError (errors.As).
var ErrTokenEndpoint = fmt.Errorf("oauth2: no access token: %w", idemrt.ErrUnauthorized)

// TokenError is why a call got no access token. It matches ErrTokenEndpoint
// and the cause (an *oauth2.RetrieveError for a token endpoint's error
// answer, a *url.Error for a network failure).
type TokenError struct {
	// Scheme is the security scheme (components.securitySchemes key).
	Scheme string
	// TokenURL is the token endpoint asked, "" for a TokenSource.
	TokenURL string
	// StatusCode is the token endpoint's HTTP status, 0 when it gave none.
	StatusCode int
	// ErrorCode is the RFC 6749 error code it answered ("invalid_client"),
	// "" when none.
	ErrorCode string
	// Err is the cause.
	Err error
}

// Error names the scheme, the endpoint and what went wrong, without the
// token endpoint's body (up to 1 MiB; it is in Err).
func (e *TokenError) Error() string {
	msg := "oauth2: no access token for the security scheme " + fmt.Sprintf("%q", e.Scheme)
	if e.TokenURL != "" {
		msg += " from " + e.TokenURL
	}
	switch {
	case e.StatusCode != 0 && e.ErrorCode != "":
		return fmt.Sprintf("%s: HTTP %d: %s", msg, e.StatusCode, e.ErrorCode)
	case e.StatusCode != 0:
		return fmt.Sprintf("%s: HTTP %d", msg, e.StatusCode)
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap exposes ErrTokenEndpoint (and through it idemrt.ErrUnauthorized)
// and the cause.
func (e *TokenError) Unwrap() []error { return []error{ErrTokenEndpoint, e.Err} }

// tokenError wraps err, a failure to get a token, for scheme.
func tokenError(scheme, tokenURL string, err error) error {
	te := &TokenError{Scheme: scheme, TokenURL: tokenURL, Err: err}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		te.ErrorCode = re.ErrorCode
		if re.Response != nil {
			te.StatusCode = re.Response.StatusCode
		}
	}
	return te
}

// errBadToken is a token whose type or value cannot travel in a header.
var errBadToken = errors.New("the token endpoint answered a token that is not a valid header value")

package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// Config is a client credentials flow: where to ask and who asks.
type Config struct {
	// TokenURL is the flow's tokenUrl: an absolute http or https URL, or a
	// reference relative to the server each call is sent to
	// (idemrt.ServerOf: NewClient's serverURL or WithBaseURL's), resolved
	// as RFC 3986 says ("/oauth/token" on https://api.example.com/v1 is
	// https://api.example.com/oauth/token). One token is kept per
	// resolved URL.
	TokenURL string
	// ClientID and ClientSecret are sent with HTTP basic authentication
	// (RFC 6749 section 2.3.1, which every server must accept), never in
	// the body, so a failing request is not tried a second way.
	ClientID, ClientSecret string
	// Scopes are requested as the scope parameter; none: the server's
	// default.
	Scopes []string
}

// ClientCredentials authenticates the operations that use the security
// scheme with access tokens from cfg's token endpoint, in an Authorization
// header ("Bearer <token>"); see the package documentation for how tokens
// are cached, shared, refreshed and refused.
func ClientCredentials(scheme string, cfg Config) idemrt.Option {
	cfg.Scopes = slices.Clone(cfg.Scopes)
	s := &ccSource{scheme: scheme, cfg: cfg, caches: map[string]*cache{}}
	return idemrt.WithCredentialSource(scheme, s.credentials, setAuthorization)
}

// TokenSource authenticates the operations that use the security scheme
// with ts's tokens. They are cached as ClientCredentials' are; after a 401
// ts is asked again, once: a ts that caches (oauth2.ReuseTokenSource, what
// an oauth2.Config returns) may answer the refused token again, and the
// call then ends with idemrt.ErrUnauthorized. ts is called on a goroutine
// of its own, so a call waiting for it still ends at its deadline.
func TokenSource(scheme string, ts oauth2.TokenSource) idemrt.Option {
	if ts == nil {
		return idemrt.WithCredentialSource(scheme, nil, nil)
	}
	c := &cache{now: time.Now, fetch: func(context.Context) (*oauth2.Token, error) { return ts.Token() }}
	return idemrt.WithCredentialSource(scheme, func(ctx context.Context) (string, error) {
		tok, err := c.token(ctx, idemrt.RefusedCredential(ctx, scheme))
		if err != nil {
			return "", wrapFailure(ctx, scheme, "", err)
		}
		return header(tok), nil
	}, setAuthorization)
}

// setAuthorization puts credentials, a token's header value, on req.
func setAuthorization(req *http.Request, credentials string) {
	req.Header.Set("Authorization", credentials)
}

// wrapFailure makes err, a failure to get a token, the call's error: the
// call's own context error as it is (a cancellation is no auth failure),
// anything else a *TokenError.
func wrapFailure(ctx context.Context, scheme, tokenURL string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return tokenError(scheme, tokenURL, err)
}

// ccSource is a client credentials flow's credential source.
type ccSource struct {
	scheme string
	cfg    Config
	// caches holds one token cache per resolved token URL.
	mu     sync.Mutex
	caches map[string]*cache
}

// maxCaches bounds the token caches of a relative token URL (one per
// server the calls went to); past it they are dropped and refilled.
const maxCaches = 16

// credentials is the source: the Authorization value of a usable token.
func (s *ccSource) credentials(ctx context.Context) (string, error) {
	tokenURL, err := resolve(s.cfg.TokenURL, idemrt.ServerOf(ctx))
	if err != nil {
		return "", tokenError(s.scheme, s.cfg.TokenURL, err)
	}
	tok, err := s.cacheFor(tokenURL).token(ctx, idemrt.RefusedCredential(ctx, s.scheme))
	if err != nil {
		return "", wrapFailure(ctx, s.scheme, tokenURL, err)
	}
	return header(tok), nil
}

// cacheFor returns the token cache of tokenURL, made on first use.
func (s *ccSource) cacheFor(tokenURL string) *cache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.caches[tokenURL]; c != nil {
		return c
	}
	if len(s.caches) >= maxCaches {
		clear(s.caches)
	}
	conf := &clientcredentials.Config{ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret,
		TokenURL: tokenURL, Scopes: s.cfg.Scopes, AuthStyle: oauth2.AuthStyleInHeader}
	c := &cache{now: time.Now, fetch: func(ctx context.Context) (*oauth2.Token, error) {
		tctx, release := tokenContext(ctx)
		defer release()
		return conf.Token(tctx)
	}}
	s.caches[tokenURL] = c
	return c
}

// resolve returns the absolute token URL of ref, resolved against server
// when it is relative, and refuses one that is not http or https, has no
// host, or carries credentials of its own (user:password@).
func resolve(ref string, server *url.URL) (string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if !u.IsAbs() {
		if server == nil {
			return "", fmt.Errorf("token URL %q is relative and the call has no server URL", ref)
		}
		u = server.ResolveReference(u)
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return "", fmt.Errorf("token URL %q is not an http or https URL with a host and no user information or fragment", ref)
	}
	return u.String(), nil
}

package runtime

import (
	"context"
	"net/http"
	"net/url"
)

// usedCredential is what a credential source returned for the latest
// attempt of a call that used its scheme.
type usedCredential struct {
	scheme, value string
}

// noteCredential records that the attempt in flight carries value as the
// credentials of scheme, replacing the previous attempt's.
func (m *traceMore) noteCredential(scheme, value string) {
	for i := range m.creds {
		if m.creds[i].scheme == scheme {
			m.creds[i].value = value
			return
		}
	}
	m.creds = append(m.creds, usedCredential{scheme: scheme, value: value})
}

// RefusedCredential returns, in the context of an attempt that resends
// after a 401 (CredentialRefresh reports true), the credentials the source
// of scheme returned for the attempt the server refused, and "" in any
// other context. A source that caches drops exactly those: when many calls
// are refused with one revoked token at once, the first to refresh fetches
// a new one and the others find it, instead of fetching one each.
func RefusedCredential(ctx context.Context, scheme string) string {
	c, ok := ctx.Value(engineKey{}).(*call)
	if !ok || !c.refreshing || c.first.more == nil {
		return ""
	}
	for _, u := range c.first.more.creds {
		if u.scheme == scheme {
			return u.value
		}
	}
	return ""
}

// ServerOf returns the server URL the call of the attempt whose context is
// ctx is sent to: WithBaseURL's when the call has it, else the one the
// request was built on (NewClient's serverURL, or an operation's server);
// nil outside a call or for a request that names none. A credential source
// resolves URLs the API document writes relative to its server (an OAuth2
// tokenUrl) against it. The caller must not modify it.
func ServerOf(ctx context.Context) *url.URL {
	c, ok := ctx.Value(engineKey{}).(*call)
	if !ok {
		return nil
	}
	if d := c.cfg.dest; d != nil && d.base != nil {
		return d.base
	}
	return c.req.Server
}

// TransportOf returns the RoundTripper of the HTTP client the Runner of
// the attempt whose context is ctx sends with (WithHTTPClient), so that a
// credential source's own requests (an OAuth2 token request) take the
// client's proxy and TLS settings: http.DefaultTransport for a client
// without one, and nil outside a call or when the client is a Doer that is
// not an *http.Client.
func TransportOf(ctx context.Context) http.RoundTripper {
	c, ok := ctx.Value(engineKey{}).(*call)
	if !ok {
		return nil
	}
	hc, ok := c.r.doer.(*http.Client)
	if !ok {
		return nil
	}
	if hc.Transport == nil {
		return http.DefaultTransport
	}
	return hc.Transport
}

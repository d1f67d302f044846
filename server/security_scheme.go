package idemsrv

import (
	"context"
	"net/http"
	"strings"
)

// Scheme is one security scheme of a document bound to the SecurityHandler
// method that checks its credentials. Generated code makes them with
// BearerScheme, BasicScheme, APIKeyScheme, TLSScheme and HTTPScheme.
type Scheme struct {
	name string
	// challenge is the WWW-Authenticate challenge of a request without
	// the credentials ("" for none: API keys and certificates have none);
	// refused that of one whose credentials were refused.
	challenge, refused string
	// present reports whether r carries the scheme's credentials, check
	// reads and checks them under ctx (the authentication deadline's).
	present func(r *http.Request) bool
	check   func(ctx context.Context, r *http.Request, operation string) (string, error)
}

// Check is a SecurityHandler method: it returns the principal credential
// belongs to, or an error (wrapping ErrForbidden for 403).
type Check[C any] func(ctx context.Context, operation string, credential C) (principal string, err error)

// newScheme binds check to the credential read finds in a request.
func newScheme[C any](name string, read func(*http.Request) (C, bool), check Check[C]) Scheme {
	return Scheme{
		name:    name,
		present: func(r *http.Request) bool { _, ok := read(r); return ok },
		check: func(ctx context.Context, r *http.Request, op string) (string, error) {
			c, _ := read(r)
			return check(ctx, op, c)
		},
	}
}

// BearerScheme binds the scheme name (an HTTP bearer, OAuth 2 or OpenID
// Connect scheme) to check.
func BearerScheme(name string, check Check[BearerCredential]) Scheme {
	s := newScheme(name, func(r *http.Request) (BearerCredential, bool) {
		tok, ok := authorization(r, "Bearer")
		return BearerCredential{Token: tok}, ok
	}, check)
	s.challenge, s.refused = "Bearer", `Bearer error="invalid_token"`
	return s
}

// BasicScheme binds the HTTP basic scheme name to check.
func BasicScheme(name string, check Check[BasicCredential]) Scheme {
	s := newScheme(name, func(r *http.Request) (BasicCredential, bool) {
		if _, ok := authorization(r, "Basic"); !ok {
			return BasicCredential{}, false
		}
		u, p, ok := r.BasicAuth()
		return BasicCredential{Username: u, Password: p}, ok
	}, check)
	s.challenge = `Basic realm="api", charset="UTF-8"`
	s.refused = s.challenge
	return s
}

// HTTPScheme binds an HTTP scheme name whose Authorization scheme is
// neither basic nor bearer (authScheme: "Digest", say) to check.
func HTTPScheme(name, authScheme string, check Check[HTTPCredential]) Scheme {
	s := newScheme(name, func(r *http.Request) (HTTPCredential, bool) {
		v, ok := authorization(r, authScheme)
		return HTTPCredential{Scheme: authScheme, Credentials: v}, ok
	}, check)
	if isToken(authScheme) {
		s.challenge, s.refused = authScheme, authScheme
	}
	return s
}

// APIKeyScheme binds the apiKey scheme name, whose key travels in the
// header, query parameter or cookie (in: InHeader, InQuery, InCookie)
// param, to check.
func APIKeyScheme(name, in, param string, check Check[APIKeyCredential]) Scheme {
	return newScheme(name, func(r *http.Request) (APIKeyCredential, bool) {
		v, ok := apiKey(r, in, param)
		return APIKeyCredential{Name: param, In: in, Value: v}, ok
	}, check)
}

// TLSScheme binds the mutualTLS scheme name to check: the request carries
// its credential when the client presented a certificate.
func TLSScheme(name string, check Check[TLSCredential]) Scheme {
	return newScheme(name, func(r *http.Request) (TLSCredential, bool) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			return TLSCredential{}, false
		}
		return TLSCredential{Certificate: r.TLS.PeerCertificates[0], Chain: r.TLS.PeerCertificates,
			VerifiedChains: r.TLS.VerifiedChains}, true
	}, check)
}

// authorization returns the credentials of r's Authorization header when
// its scheme is scheme (compared without case, RFC 9110 11.1). A request
// with two Authorization headers carries none: which one the client meant
// cannot be told.
func authorization(r *http.Request, scheme string) (string, bool) {
	vs := r.Header.Values("Authorization")
	if len(vs) != 1 {
		return "", false
	}
	s, rest, ok := strings.Cut(vs[0], " ")
	rest = strings.TrimLeft(rest, " ")
	if !ok || !strings.EqualFold(s, scheme) || rest == "" {
		return "", false
	}
	return rest, true
}

// apiKey returns the one non-empty value of an API key; a key sent twice
// is not sent, as a header sent twice is not.
func apiKey(r *http.Request, in, name string) (string, bool) {
	var vs []string
	switch in {
	case InHeader:
		vs = r.Header.Values(name)
	case InQuery:
		vs = r.URL.Query()[name]
	case InCookie:
		for _, c := range r.CookiesNamed(name) {
			vs = append(vs, c.Value)
		}
	}
	if len(vs) != 1 || vs[0] == "" {
		return "", false
	}
	return vs[0], true
}

// isToken reports whether s is an RFC 9110 token, which an auth scheme
// named in a WWW-Authenticate challenge must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

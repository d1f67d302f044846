package parser

import (
	"net/url"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// ruleTokenURL reports an OAuth2 client credentials flow whose tokenUrl a
// client cannot send a client secret to.
const ruleTokenURL = "oauth-token-url"

// clientCredentials returns the client credentials flow of an oauth2
// scheme, or nil when it has none or its tokenUrl is refused (warning at
// at, the scheme's location): the scheme then gets no option that fetches
// tokens, only those taking a token or a source.
func (b *builder) clientCredentials(s *openapi3.SecurityScheme, at loc) *ir.OAuthFlow {
	if s.Type != "oauth2" || s.Flows == nil || s.Flows.ClientCredentials == nil {
		return nil
	}
	f := s.Flows.ClientCredentials
	if reason := tokenURLProblem(f.TokenURL); reason != "" {
		where := at.at("flows", "clientCredentials", "tokenUrl")
		if b.api.OpenAPI == "2.0" {
			where = at.at("tokenUrl") // Swagger 2.0's flow: application
		}
		b.l.sink.warnf(where, "", ruleTokenURL,
			"tokenUrl %q %s; the scheme gets no client credentials option", f.TokenURL, reason)
		return nil
	}
	scopes := make([]string, 0, len(f.Scopes))
	for name := range f.Scopes {
		scopes = append(scopes, name)
	}
	sort.Strings(scopes)
	return &ir.OAuthFlow{TokenURL: f.TokenURL, Scopes: scopes}
}

// tokenURLProblem says why a tokenUrl cannot be used, or "": it must be an
// absolute http(s) URL with a host, or a reference relative to the server
// URL, with no user information (credentials of its own), no fragment and
// no control character or space.
func tokenURLProblem(s string) string {
	if s == "" {
		return "is empty"
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "holds a space or a control character"
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "is not a URL"
	case u.Scheme != "" && !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
		return "is not an http or https URL"
	case u.Scheme != "" && u.Host == "":
		return "has no host"
	case u.User != nil:
		return "carries user information (credentials belong in the client's options)"
	case u.Fragment != "" || strings.Contains(s, "#"):
		return "has a fragment"
	}
	return ""
}

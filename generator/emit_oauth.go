package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// oauthPath is the runtime package behind the OAuth2 options, imported as
// idemoauth; oauth2Path is golang.org/x/oauth2, whose TokenSource the
// options take. Only a package with a client credentials flow imports them.
const (
	oauthPath  = "github.com/idemgen/idemgen/runtime/oauth"
	oauth2Path = "golang.org/x/oauth2"
)

// OAuth2Version is the golang.org/x/oauth2 the runtime module requires; a
// generated module that imports it (a document with a client credentials
// flow) requires it too. A test checks it against runtime/go.mod.
const OAuth2Version = "v0.38.0"

// oauthIdents are the option names of a scheme with a client credentials
// flow.
type oauthIdents struct {
	clientCredentials, tokenSource string
}

// reserveOAuth names the options of each scheme with a client credentials
// flow: With<Scheme>ClientCredentials and With<Scheme>TokenSource.
func (g *generation) reserveOAuth() {
	for _, s := range g.api.SecuritySchemes {
		if s.ClientCredentials == nil {
			continue
		}
		if g.oauthNames == nil {
			g.oauthNames = map[*ir.SecurityScheme]oauthIdents{}
		}
		g.oauthNames[s] = oauthIdents{
			clientCredentials: g.ns.claim("With"+s.GoName+"ClientCredentials", "Auth"),
			tokenSource:       g.ns.claim("With"+s.GoName+"TokenSource", "Auth"),
		}
	}
}

// addOAuthOptions adds to f the OAuth2 options of s, if it has them.
func (g *generation) addOAuthOptions(f *jen.File, s *ir.SecurityScheme) {
	names, ok := g.oauthNames[s]
	if !ok {
		return
	}
	f.ImportAlias(oauthPath, "idemoauth")
	f.ImportName(oauth2Path, "oauth2")
	f.Line().Add(emitClientCredentials(s, names.clientCredentials))
	f.Line().Add(emitTokenSource(s, names.tokenSource))
}

// emitClientCredentials emits a scheme's client credentials option:
//
//	func WithOAuthClientCredentials(clientID, clientSecret string, scopes ...string) idemrt.Option {
//		return idemoauth.ClientCredentials("oAuth", idemoauth.Config{
//			TokenURL:     "https://auth.example.com/oauth/token",
//			ClientID:     clientID,
//			ClientSecret: clientSecret,
//			Scopes:       scopes,
//		})
//	}
func emitClientCredentials(s *ir.SecurityScheme, name string) jen.Code {
	flow := s.ClientCredentials
	where := fmt.Sprintf("the token URL %s", flow.TokenURL)
	if !ir.AbsoluteServer(flow.TokenURL) {
		where += " (resolved against the server each call goes to: the client's serverURL, or idemrt.WithBaseURL's)"
	}
	declared := "The document declares no scopes."
	if len(flow.Scopes) > 0 {
		declared = "The document declares the scopes " + strings.Join(flow.Scopes, ", ") + "."
	}
	doc := comment(fmt.Sprintf("%s authenticates the requests of the operations whose security requirements list "+
		"the scheme %q with OAuth2 access tokens (Authorization: Bearer) that it fetches by the client credentials "+
		"flow from %s, sending clientID and clientSecret with HTTP basic authentication and requesting scopes "+
		"(none: the server's default).", name, s.Name, where),
		declared+" One token serves every call until shortly before it expires (idemoauth.ExpiryMargin), and "+
			"calls that need a new one at the same time share one token request. After a 401 the call drops its "+
			"token, fetches one anew and resends once, with the same idempotency key. A token request that fails "+
			"ends the call before anything is sent to the API, with an error matching idemoauth.ErrTokenEndpoint "+
			"and idemrt.ErrUnauthorized; the call's retries never repeat it. Token requests use the transport of "+
			"the client's *http.Client (idemrt.WithHTTPClient) and are never redirected.")
	cfg := jen.Qual(oauthPath, "Config").Values(jen.Dict{
		jen.Id("TokenURL"):     jen.Lit(flow.TokenURL),
		jen.Id("ClientID"):     jen.Id("clientID"),
		jen.Id("ClientSecret"): jen.Id("clientSecret"),
		jen.Id("Scopes"):       jen.Id("scopes"),
	})
	return doc.Func().Id(name).Params(jen.List(jen.Id("clientID"), jen.Id("clientSecret")).String(),
		jen.Id("scopes").Op("...").String()).Qual(rtPath, "Option").Block(
		jen.Return(jen.Qual(oauthPath, "ClientCredentials").Call(jen.Lit(s.Name), cfg)))
}

// emitTokenSource emits a scheme's TokenSource option:
//
//	func WithOAuthTokenSource(ts oauth2.TokenSource) idemrt.Option {
//		return idemoauth.TokenSource("oAuth", ts)
//	}
func emitTokenSource(s *ir.SecurityScheme, name string) jen.Code {
	doc := comment(fmt.Sprintf("%s authenticates the requests of the operations whose security requirements list "+
		"the scheme %q with the OAuth2 tokens ts returns: any golang.org/x/oauth2 TokenSource (an "+
		"oauth2.Config's, a clientcredentials.Config's with settings of its own, a static one). Its tokens are "+
		"cached and shared as the client credentials option's are; after a 401 ts is asked once more, and a ts "+
		"that answers the refused token again ends the call with idemrt.ErrUnauthorized. An error from ts ends "+
		"the call unsent, matching idemoauth.ErrTokenEndpoint and idemrt.ErrUnauthorized.", name, s.Name))
	return doc.Func().Id(name).Params(jen.Id("ts").Qual(oauth2Path, "TokenSource")).Qual(rtPath, "Option").Block(
		jen.Return(jen.Qual(oauthPath, "TokenSource").Call(jen.Lit(s.Name), jen.Id("ts"))))
}

// oauthRequire is the go.mod line of a generated module that imports
// golang.org/x/oauth2, "" for one that does not.
func (g *generation) oauthRequire() string {
	if len(g.oauthNames) == 0 {
		return ""
	}
	return "\nrequire " + oauth2Path + " " + OAuth2Version + "\n"
}

package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// clientFile emits client_gen.go: the Client, NewClient, the default server
// and one option per supported security scheme.
func (g *generation) clientFile() *jen.File {
	f := g.newFile()
	f.Add(g.emitClient())
	if u := defaultServer(g.api); u != "" {
		f.Line().Comment("DefaultServerURL is the first server the API document lists.").Line().
			Const().Id("DefaultServerURL").Op("=").Lit(u)
	}
	if len(g.serverURLs) > 0 {
		f.Line().Add(g.emitServerConsts())
	}
	f.Line().Add(g.emitNewClient())
	if len(g.serverURLs) > 0 {
		f.Line().Add(emitWithServerURL())
	}
	f.Line().Add(g.emitLookupIntent())
	for _, s := range g.api.SecuritySchemes {
		if name, ok := g.schemeNames[s]; ok {
			f.Line().Add(emitSchemeOption(s, name))
		}
		if name, ok := g.sourceNames[s]; ok {
			f.Line().Add(emitSourceOption(s, name))
		}
		g.addOAuthOptions(f, s)
	}
	return f
}

// emitClient emits the Client type:
//
//	// Client calls the Orders API. It is safe for concurrent use. ...
//	type Client struct {
//		server *url.URL
//		runner *idemrt.Runner
//	}
func (g *generation) emitClient() jen.Code {
	title := strings.TrimSpace(g.api.Title)
	if title == "" {
		title = "the"
	}
	doc := fmt.Sprintf("Client calls the %s API. It is safe for concurrent use. Every method follows the retry contract "+
		"stated in its doc comment and carried by its idemrt.Operation value.", title)
	fields := []jen.Code{jen.Id("server").Op("*").Qual("net/url", "URL")}
	if len(g.serverURLs) > 0 {
		// The URL each operation server (ServerFilesStripeCom...) is sent to.
		fields = append(fields, jen.Id("servers").Map(jen.String()).Op("*").Qual("net/url", "URL"))
	}
	fields = append(fields, jen.Id("runner").Op("*").Qual(rtPath, "Runner"))
	return g.comment(doc).Type().Id("Client").Struct(fields...)
}

// defaultServer returns the first server URL when it is absolute and has no
// variables, else "".
func defaultServer(api *ir.API) string {
	if len(api.Servers) == 0 {
		return ""
	}
	if u := api.Servers[0].URL; ir.AbsoluteServer(u) {
		return u
	}
	return ""
}

// emitNewClient emits NewClient; the default User-Agent names the runtime's
// version and the package (a constant of the runtime, so the generated
// bytes do not depend on it), and the caller's options come after it, so
// idemrt.WithUserAgent overrides it. A document with a base path has it
// added to a serverURL without a path, and one with operation servers
// parses them (emitServersInit):
//
//	func NewClient(serverURL string, opts ...idemrt.Option) (*Client, error) {
//		server, err := wire.ParseServerURL(serverURL)
//		if err != nil {
//			return nil, err
//		}
//		if server.Path == "" {
//			server.Path = "/v1"
//		}
//		opts = append([]idemrt.Option{idemrt.WithUserAgent(idemrt.UserAgent("orders"))}, opts...)
//		return &Client{server: server, runner: idemrt.NewRunner(opts...)}, nil
//	}
func (g *generation) emitNewClient() jen.Code {
	pkg := g.cfg.Package
	doc := "NewClient returns a client for the API at serverURL, an absolute URL such as " +
		"https://api.example.com/v1. The options configure the HTTP client (idemrt.WithHTTPClient), " +
		"retry policies and budgets, observers, authentication (the With functions of this package) and " +
		"the defaults of the call options (idemrt.WithMaxAttempts, idemrt.WithTimeout...). Requests carry the " +
		"User-Agent idemrt.UserAgent(" + strconvQuote(pkg) + ") unless idemrt.WithUserAgent says otherwise."
	if g.api.BasePath != "" {
		doc += " The API is served under " + g.api.BasePath + " on any host: a serverURL without a path " +
			"(https://host) gets it; one with a path is used as it is."
	}
	body := []jen.Code{
		jen.List(jen.Id("server"), jen.Err()).Op(":=").Qual(wirePath, "ParseServerURL").Call(jen.Id("serverURL")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
	if g.api.BasePath != "" {
		body = append(body, jen.If(jen.Id("server").Dot("Path").Op("==").Lit("")).Block(
			jen.Id("server").Dot("Path").Op("=").Lit(g.api.BasePath)))
	}
	fields := []jen.Code{jen.Id("server").Op(":").Id("server")}
	if len(g.serverURLs) > 0 {
		body = append(body, g.emitServersInit()...)
		fields = append(fields, jen.Id("servers").Op(":").Id("servers"))
	}
	fields = append(fields, jen.Id("runner").Op(":").Qual(rtPath, "NewRunner").Call(jen.Id("opts").Op("...")))
	body = append(body,
		jen.Id("opts").Op("=").Append(jen.Index().Qual(rtPath, "Option").Values(
			jen.Qual(rtPath, "WithUserAgent").Call(jen.Qual(rtPath, "UserAgent").Call(jen.Lit(pkg)))), jen.Id("opts").Op("...")),
		jen.Return(jen.Op("&").Id("Client").Values(fields...), jen.Nil()))
	return comment(doc).Func().Id("NewClient").Params(jen.Id("serverURL").String(), jen.Id("opts").Op("...").Qual(rtPath, "Option")).
		Params(jen.Op("*").Id("Client"), jen.Error()).Block(body...)
}

// strconvQuote quotes s as a Go string literal for a doc comment.
func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// schemeSupported reports whether a security scheme becomes an option.
// Mutual TLS is configured on the HTTP client instead (WithHTTPClient).
func schemeSupported(s *ir.SecurityScheme) bool {
	switch s.Type {
	case "http", "oauth2", "openIdConnect":
		return true
	case "apiKey":
		return s.In == ir.InHeader || s.In == ir.InQuery || s.In == ir.InCookie
	}
	return false
}

// emitSchemeOption emits the typed option of a security scheme, built on
// idemrt.WithRequestEditor so it applies to every attempt, but only of the
// operations whose security requirements list the scheme (an operation with
// `security: []` must not receive credentials it does not need):
//
//	func WithBearerAuth(token string) idemrt.Option {
//		return idemrt.WithRequestEditor(func(ctx context.Context, req *http.Request) error {
//			if !idemrt.OperationOf(ctx).Uses("bearerAuth") {
//				return nil
//			}
//			req.Header.Set("Authorization", "Bearer "+token)
//			return nil
//		})
//	}
func emitSchemeOption(s *ir.SecurityScheme, name string) jen.Code {
	params, stmt, what := schemeEdit(s)
	doc := comment(fmt.Sprintf("%s authenticates the requests of the operations whose security requirements list "+
		"the scheme %q, %s; other operations are sent without these credentials.", name, s.Name, what), s.Description)
	skip := jen.If(jen.Op("!").Qual(rtPath, "OperationOf").Call(jen.Id("ctx")).Dot("Uses").Call(jen.Lit(s.Name))).
		Block(jen.Return(jen.Nil()))
	return doc.Func().Id(name).Params(params...).Qual(rtPath, "Option").Block(
		jen.Return(jen.Qual(rtPath, "WithRequestEditor").Call(
			jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Qual("net/http", "Request")).Error().Block(
				skip, stmt, jen.Return(jen.Nil())))))
}

// sourceSupported reports whether a scheme also gets a credential-source
// option: every scheme that gets a static one.
func sourceSupported(s *ir.SecurityScheme) bool { return schemeSupported(s) }

// isBasic reports HTTP basic authentication, whose credentials are a pair.
func isBasic(s *ir.SecurityScheme) bool {
	return s.Type == "http" && strings.EqualFold(s.Scheme, "basic")
}

// emitSourceOption emits the credential-source option of a scheme: the
// source is called for every attempt, and a 401 makes the engine call it
// again and resend once (idemrt.WithCredentialSource):
//
//	func WithBearerAuthSource(source func(ctx context.Context) (string, error)) idemrt.Option {
//		return idemrt.WithCredentialSource("bearerAuth", source, func(req *http.Request, token string) {
//			req.Header.Set("Authorization", "Bearer "+token)
//		})
//	}
func emitSourceOption(s *ir.SecurityScheme, name string) jen.Code {
	if isBasic(s) {
		return emitBasicSourceOption(s, name)
	}
	params, stmt, what := schemeEdit(s)
	doc := comment(fmt.Sprintf("%s authenticates the requests of the operations whose security requirements list "+
		"the scheme %q, %s that source returns; it is called for every attempt. After a 401 the call asks "+
		"source once more (idemrt.CredentialRefresh(ctx) reports true) and resends once; a second 401 "+
		"ends it with idemrt.ErrUnauthorized.", name, s.Name, what))
	source := jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Params(jen.String(), jen.Error())
	return doc.Func().Id(name).Params(jen.Id("source").Add(source)).Qual(rtPath, "Option").Block(
		jen.Return(jen.Qual(rtPath, "WithCredentialSource").Call(jen.Lit(s.Name), jen.Id("source"),
			jen.Func().Params(append([]jen.Code{jen.Id("req").Op("*").Qual("net/http", "Request")}, params...)...).Block(stmt))))
}

// emitBasicSourceOption emits the credential-source option of HTTP basic
// authentication: the source returns the pair, which travels through the
// runtime's one-string source already encoded (RFC 7617), so that the
// runtime needs no knowledge of the scheme:
//
//	func WithBasicAuthSource(source func(ctx context.Context) (username, password string, err error)) idemrt.Option {
//		return idemrt.WithCredentialSource("basicAuth", func(ctx context.Context) (string, error) {
//			username, password, err := source(ctx)
//			return base64.StdEncoding.EncodeToString([]byte(username + ":" + password)), err
//		}, func(req *http.Request, credentials string) {
//			req.Header.Set("Authorization", "Basic "+credentials)
//		})
//	}
func emitBasicSourceOption(s *ir.SecurityScheme, name string) jen.Code {
	doc := comment(fmt.Sprintf("%s authenticates the requests of the operations whose security requirements list "+
		"the scheme %q, with HTTP basic authentication by the username and password that source returns; it is "+
		"called for every attempt. After a 401 the call asks source once more (idemrt.CredentialRefresh(ctx) "+
		"reports true) and resends once; a second 401 ends it with idemrt.ErrUnauthorized.", name, s.Name))
	ctx := jen.Id("ctx").Qual("context", "Context")
	source := jen.Func().Params(ctx.Clone()).Params(jen.Id("username"), jen.Id("password").String(), jen.Err().Error())
	encode := jen.Func().Params(ctx.Clone()).Params(jen.String(), jen.Error()).Block(
		jen.List(jen.Id("username"), jen.Id("password"), jen.Err()).Op(":=").Id("source").Call(jen.Id("ctx")),
		jen.Return(jen.Qual("encoding/base64", "StdEncoding").Dot("EncodeToString").Call(
			jen.Index().Byte().Parens(jen.Id("username").Op("+").Lit(":").Op("+").Id("password"))), jen.Err()))
	apply := jen.Func().Params(jen.Id("req").Op("*").Qual("net/http", "Request"), jen.Id("credentials").String()).Block(
		jen.Id("req").Dot("Header").Dot("Set").Call(jen.Lit("Authorization"), jen.Lit("Basic ").Op("+").Id("credentials")))
	return doc.Func().Id(name).Params(jen.Id("source").Add(source)).Qual(rtPath, "Option").Block(
		jen.Return(jen.Qual(rtPath, "WithCredentialSource").Call(jen.Lit(s.Name), encode, apply)))
}

// schemeEdit returns an option's parameters, the statement that applies the
// credentials to a request, and a phrase saying how.
func schemeEdit(s *ir.SecurityScheme) ([]jen.Code, jen.Code, string) {
	req := jen.Id("req")
	if s.Type == "apiKey" {
		key := []jen.Code{jen.Id("key").String()}
		switch s.In {
		case ir.InQuery:
			return key, jen.Id("q").Op(":=").Add(req.Clone()).Dot("URL").Dot("Query").Call().Line().
					Id("q").Dot("Set").Call(jen.Lit(s.ParamName), jen.Id("key")).Line().
					Add(req.Clone()).Dot("URL").Dot("RawQuery").Op("=").Id("q").Dot("Encode").Call(),
				fmt.Sprintf("with the API key in the query parameter %q", s.ParamName)
		case ir.InCookie:
			return key, req.Clone().Dot("AddCookie").Call(jen.Op("&").Qual("net/http", "Cookie").Values(
					jen.Id("Name").Op(":").Lit(s.ParamName), jen.Id("Value").Op(":").Id("key"))),
				fmt.Sprintf("with the API key in the cookie %q", s.ParamName)
		}
		return key, req.Clone().Dot("Header").Dot("Set").Call(jen.Lit(s.ParamName), jen.Id("key")),
			fmt.Sprintf("with the API key in the %s header", s.ParamName)
	}
	switch {
	case isBasic(s):
		return []jen.Code{jen.List(jen.Id("username"), jen.Id("password")).String()},
			req.Clone().Dot("SetBasicAuth").Call(jen.Id("username"), jen.Id("password")), "with HTTP basic authentication"
	case s.Type == "http" && s.Scheme != "" && !strings.EqualFold(s.Scheme, "bearer"):
		scheme := strings.ToUpper(s.Scheme[:1]) + s.Scheme[1:]
		return []jen.Code{jen.Id("credentials").String()},
			req.Clone().Dot("Header").Dot("Set").Call(jen.Lit("Authorization"), jen.Lit(scheme+" ").Op("+").Id("credentials")),
			fmt.Sprintf("with the %s Authorization scheme", scheme)
	}
	return []jen.Code{jen.Id("token").String()},
		req.Clone().Dot("Header").Dot("Set").Call(jen.Lit("Authorization"), jen.Lit("Bearer ").Op("+").Id("token")),
		"with a bearer token"
}

package generator

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// opServerURL is the server an operation is sent to instead of the client's:
// the first server its operation or path item declares, when that is
// absolute, has no variables and is not the document's default; "" for the
// client's server.
func opServerURL(api *ir.API, op *ir.Operation) string {
	if len(op.Servers) == 0 || !ir.AbsoluteServer(op.Servers[0].URL) {
		return ""
	}
	u := op.Servers[0].URL
	if strings.TrimSuffix(u, "/") == strings.TrimSuffix(defaultServer(api), "/") {
		return ""
	}
	return u
}

// reserveServers names a constant for each distinct operation server
// (Server<Host><Path>: "https://files.stripe.com/" -> ServerFilesStripeCom),
// in URL order.
func (g *generation) reserveServers(ops []*ir.Operation) {
	g.serverUsers = map[string][]string{}
	var urls []string
	for _, op := range ops {
		if u := opServerURL(g.api, op); u != "" {
			if g.serverUsers[u] == nil {
				urls = append(urls, u)
			}
			g.serverUsers[u] = append(g.serverUsers[u], op.GoName)
		}
	}
	sort.Strings(urls)
	g.serverNames = map[string]string{}
	for _, u := range urls {
		g.serverURLs = append(g.serverURLs, u)
		g.serverNames[u] = g.ns.claim(serverIdent(u), "URL")
	}
}

// serverIdent makes an identifier of a server URL's host and path from their
// ASCII letters and digits.
func serverIdent(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "Server"
	}
	var b strings.Builder
	b.WriteString("Server")
	upper := true
	for _, r := range u.Host + u.Path {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if upper {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upper = false
			continue
		}
		upper = true
	}
	return b.String()
}

// serverExpr is the server URL an operation's Builder starts from:
// c.server, or c.servers[ServerFilesStripeCom] for an operation server.
func (g *generation) serverExpr(op *ir.Operation) *jen.Statement {
	if u := opServerURL(g.api, op); u != "" {
		return jen.Id("c").Dot("servers").Index(jen.Id(g.serverNames[u]))
	}
	return jen.Id("c").Dot("server")
}

// emitServerConsts emits one constant per operation server:
//
//	// ServerFilesStripeCom is a server that operations declare instead of
//	// the document's: PostFiles. Client.WithServerURL sends them elsewhere.
//	const ServerFilesStripeCom = "https://files.stripe.com/"
func (g *generation) emitServerConsts() jen.Code {
	var out []jen.Code
	for _, u := range g.serverURLs {
		users := g.serverUsers[u]
		if len(users) > 8 {
			users = append(users[:8:8], "...")
		}
		doc := fmt.Sprintf("%s is a server that operations declare instead of the document's; they are sent "+
			"there when NewClient is given the document's default server, else to NewClient's server, unless "+
			"Client.WithServerURL says otherwise: %s.", g.serverNames[u], strings.Join(users, ", "))
		out = append(out, comment(doc).Const().Id(g.serverNames[u]).Op("=").Lit(u), jen.Line())
	}
	return jen.Add(out...)
}

// emitServersInit fills the client's operation servers in NewClient. A
// client pointed away from the document's default server (a mock, a test
// server, a proxy) sends them there too, so that one URL moves the whole
// API; WithServerURL still moves each:
//
//	servers := map[string]*url.URL{}
//	moved := server.String() != DefaultServerURL // as parsed
//	for _, s := range []string{ServerFilesStripeCom} {
//		if servers[s], err = wire.ParseServerURL(s); err != nil {
//			return nil, err
//		}
//		if moved {
//			servers[s] = server
//		}
//	}
func (g *generation) emitServersInit() []jen.Code {
	names := make([]jen.Code, len(g.serverURLs))
	for i, u := range g.serverURLs {
		names[i] = jen.Id(g.serverNames[u])
	}
	moved := jen.False()
	if def := defaultServer(g.api); def != "" {
		if u, err := url.Parse(def); err == nil {
			u.Path, u.RawPath = strings.TrimSuffix(u.Path, "/"), strings.TrimSuffix(u.RawPath, "/")
			moved = jen.Id("server").Dot("String").Call().Op("!=").Lit(u.String())
		}
	}
	return []jen.Code{
		jen.Id("servers").Op(":=").Map(jen.String()).Op("*").Qual("net/url", "URL").Values(),
		jen.Comment("A client pointed away from the document's server (a mock, a proxy) sends these there too."),
		jen.Id("moved").Op(":=").Add(moved),
		jen.For(jen.List(jen.Id("_"), jen.Id("s")).Op(":=").Range().Index().String().Values(names...)).Block(
			jen.If(jen.List(jen.Id("servers").Index(jen.Id("s")), jen.Err()).Op("=").Qual(wirePath, "ParseServerURL").Call(jen.Id("s")),
				jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Id("moved")).Block(jen.Id("servers").Index(jen.Id("s")).Op("=").Id("server"))),
	}
}

// emitWithServerURL emits the method that redirects an operation server:
//
//	func (c *Client) WithServerURL(declared, serverURL string) (*Client, error) {
//		if _, ok := c.servers[declared]; !ok {
//			return nil, fmt.Errorf("%q is not a server an operation declares", declared)
//		}
//		u, err := wire.ParseServerURL(serverURL)
//		if err != nil {
//			return nil, err
//		}
//		cp := *c
//		cp.servers = maps.Clone(c.servers)
//		cp.servers[declared] = u
//		return &cp, nil
//	}
func emitWithServerURL() jen.Code {
	doc := "WithServerURL returns a copy of the client that sends the operations declaring the server declared " +
		"(one of the Server constants of this package) to serverURL, an absolute URL, instead. The copy shares " +
		"the client's runner: its options, policies and budgets. A declared URL no operation declares is an error. " +
		"idemrt.WithBaseURL, given to NewClient or to a call, sends every operation elsewhere, these included."
	return comment(doc).Func().Params(jen.Id("c").Op("*").Id("Client")).Id("WithServerURL").
		Params(jen.List(jen.Id("declared"), jen.Id("serverURL")).String()).Params(jen.Op("*").Id("Client"), jen.Error()).Block(
		jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("c").Dot("servers").Index(jen.Id("declared")), jen.Op("!").Id("ok")).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%q is not a server an operation declares"), jen.Id("declared")))),
		jen.List(jen.Id("u"), jen.Err()).Op(":=").Qual(wirePath, "ParseServerURL").Call(jen.Id("serverURL")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("cp").Op(":=").Op("*").Id("c"),
		jen.Id("cp").Dot("servers").Op("=").Qual("maps", "Clone").Call(jen.Id("c").Dot("servers")),
		jen.Id("cp").Dot("servers").Index(jen.Id("declared")).Op("=").Id("u"),
		jen.Return(jen.Op("&").Id("cp"), jen.Nil()),
	)
}

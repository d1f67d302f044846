package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// serverFile emits server_gen.go: the Handler interface, the Server type,
// NewServer, and per operation its route and its serve method.
func (g *generation) serverFile(ops []*ir.Operation) *jen.File {
	f := g.newFile()
	f.ImportAlias(srvPath, "idemsrv")
	routes := serverRoutes(ops)
	f.Add(g.emitHandler(routes)).Line()
	f.Add(g.emitServerType()).Line()
	f.Add(g.emitNewServer(routes)).Line()
	if schemes := g.serverSchemes(); g.securityNames[0] != "" {
		f.Add(g.emitSecurityHandler(schemes)).Line()
		f.Add(g.emitBindSecurity(schemes)).Line()
	}
	f.Add(g.emitServeHTTP()).Line()
	for _, rt := range routes {
		if rt.unrouted != "" {
			continue
		}
		f.Add(g.emitRoute(rt.op)).Line()
		f.Add(g.emitServeOp(rt)).Line()
		if g.serverStreamForm(rt) {
			f.Add(g.emitStreamForm(rt)).Line()
		}
	}
	return f
}

// emitHandler emits the interface a server author implements, one method
// per served operation with the client method's signature minus its call
// options:
//
//	type Handler interface {
//		CreateOrder(ctx context.Context, body CreateOrderRequest, params CreateOrderParams) (*CreateOrderResult, error)
//	}
func (g *generation) emitHandler(routes []*serverRoute) jen.Code {
	var methods []jen.Code
	var unrouted []string
	for _, rt := range routes {
		op := rt.op
		if rt.unrouted != "" {
			unrouted = append(unrouted, fmt.Sprintf("%s (%s)", op.GoName, rt.unrouted))
			continue
		}
		args := g.methodArgs(op)
		sig := jen.Id(op.GoName).Params(args[:len(args)-1]...).Add(g.handlerReturns(op))
		if serverStreams(op) {
			sig = g.streamHandlerMethod(op)
		}
		methods = append(methods, jen.Comment(fmt.Sprintf("%s serves %s %s (%s).", op.GoName, op.Method, inlineText(requestPath(op)), opLabel(op))).Line().
			Add(sig))
		if g.serverStreamForm(rt) {
			methods = append(methods, g.streamFormMethod(op))
		}
	}
	doc := []string{"Handler is the server side of the API: one method per operation, with the signature of the client " +
		"method of the same name without its call options, so one set of models serves both ends. A method answers " +
		"a declared error status by returning an *idemrt.StatusError with StatusCode and Model set; any other error " +
		"is answered 500 without its text."}
	if streams := g.streamHandlerDoc(routes); streams != "" {
		doc = append(doc, streams)
	}
	if len(unrouted) > 0 {
		doc = append(doc, "Not routed: "+strings.Join(unrouted, ", ")+".")
	}
	return g.comment(doc...).Type().Id("Handler").Interface(methods...)
}

// emitServerType emits the Server struct.
func (g *generation) emitServerType() jen.Code {
	return jen.Comment("Server serves the API over HTTP by calling a Handler; it is an http.Handler. Mount it under the path of the").Line().
		Comment("server URL clients use (http.StripPrefix(\"/v1\", srv), say).").Line().
		Type().Id("Server").Struct(
		jen.Id("h").Id("Handler"),
		jen.Id("engine").Op("*").Qual(srvPath, "Engine"),
		jen.Id("root").Qual("net/http", "Handler"),
	)
}

// emitNewServer emits NewServer: it checks the options against the keyed
// operations, then routes every operation:
//
//	func NewServer(h Handler, opts ...idemsrv.Option) (*Server, error) {
//		e, err := idemsrv.New([]string{"createOrder"}, opts...)
//		...
//		if err := e.Handle(createOrderRoute, s.serveCreateOrder); err != nil {
//			return nil, err
//		}
func (g *generation) emitNewServer(routes []*serverRoute) jen.Code {
	var keyed []jen.Code
	var body []jen.Code
	for _, rt := range routes {
		// A stream never runs through the ledger (idemsrv.Route.Stream).
		if rt.unrouted == "" && rt.op.Retry.Safety == ir.Keyed && !serverStreams(rt.op) {
			keyed = append(keyed, jen.Lit(rt.op.ID))
		}
	}
	keyedList := jen.Nil()
	if len(keyed) > 0 {
		keyedList = jen.Index().String().Values(keyed...)
	}
	body = append(body,
		jen.List(jen.Id("e"), jen.Err()).Op(":=").Qual(srvPath, "New").Call(keyedList, jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		g.emitSecure(routes),
		jen.Id("s").Op(":=").Op("&").Id("Server").Values(jen.Id("h").Op(":").Id("h"), jen.Id("engine").Op(":").Id("e")),
	)
	for _, rt := range routes {
		switch {
		case rt.unrouted != "":
		case g.serverStreamForm(rt):
			body = append(body, g.handleEither(rt))
		default:
			call := jen.Id("e").Dot("Handle").Call(jen.Id(g.opNames[rt.op].route), jen.Id("s").Dot("serve"+rt.op.GoName))
			body = append(body, jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		}
	}
	body = append(body, jen.Id("s").Dot("root").Op("=").Id("e").Dot("Root").Call(), jen.Return(jen.Id("s"), jen.Nil()))
	return g.comment("NewServer returns a Server calling h. A spec with keyed operations needs idemsrv.WithLedger(l) "+
		"(or idemsrv.WithoutLedger() to keep the key contract in h): without either NewServer returns an error naming them. "+
		"With a ledger, keyed operations under a security requirement need idemsrv.WithSecurity(sh), whose principal "+
		"scopes their keys (or idemsrv.WithCredentialScopedKeys() to scope them by the credential's bytes). "+
		"idemsrv.WithMaxInFlight(n) sheds load beyond n requests in progress.").
		Func().Id("NewServer").Params(jen.Id("h").Id("Handler"), jen.Id("opts").Op("...").Qual(srvPath, "Option")).
		Params(jen.Op("*").Id("Server"), jen.Error()).Block(body...)
}

// emitServeHTTP emits Server.ServeHTTP.
func (g *generation) emitServeHTTP() jen.Code {
	return jen.Comment("ServeHTTP routes the request to its operation.").Line().
		Func().Params(jen.Id("s").Op("*").Id("Server")).Id("ServeHTTP").
		Params(jen.Id("w").Qual("net/http", "ResponseWriter"), jen.Id("r").Op("*").Qual("net/http", "Request")).
		Block(jen.Id("s").Dot("root").Dot("ServeHTTP").Call(jen.Id("w"), jen.Id("r")))
}

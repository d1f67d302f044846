package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// serverScheme says how a generated server checks one security scheme: the
// idemsrv constructor that binds it, its credential type, the constructor's
// arguments before the method, and a phrase for the doc comment.
type serverScheme struct {
	ctor, cred string
	args       []jen.Code
	what       string
}

// serverSchemeOf is how s is checked; false for a scheme no request can
// carry (an apiKey in an unknown place, an unknown type), which gets no
// method and whose requirements no request meets.
func serverSchemeOf(s *ir.SecurityScheme) (serverScheme, bool) {
	name := jen.Lit(s.Name)
	switch {
	case s.Type == "apiKey" && (s.In == ir.InHeader || s.In == ir.InQuery || s.In == ir.InCookie):
		return serverScheme{"APIKeyScheme", "APIKeyCredential", []jen.Code{name, jen.Lit(string(s.In)), jen.Lit(s.ParamName)},
			fmt.Sprintf("the API key in the %s %q", s.In, s.ParamName)}, true
	case s.Type == "mutualTLS":
		return serverScheme{"TLSScheme", "TLSCredential", []jen.Code{name}, "the client certificate"}, true
	case isBasic(s):
		return serverScheme{"BasicScheme", "BasicCredential", []jen.Code{name}, "the HTTP basic username and password"}, true
	case s.Type == "http" && s.Scheme != "" && !strings.EqualFold(s.Scheme, "bearer"):
		scheme := strings.ToUpper(s.Scheme[:1]) + s.Scheme[1:]
		return serverScheme{"HTTPScheme", "HTTPCredential", []jen.Code{name, jen.Lit(scheme)},
			fmt.Sprintf("the Authorization header of scheme %q", scheme)}, true
	case s.Type == "http" || s.Type == "oauth2" || s.Type == "openIdConnect":
		return serverScheme{"BearerScheme", "BearerCredential", []jen.Code{name}, "the bearer token"}, true
	}
	return serverScheme{}, false
}

// serverSchemes lists the document's schemes a server checks, in IR order.
func (g *generation) serverSchemes() []*ir.SecurityScheme {
	var out []*ir.SecurityScheme
	for _, s := range g.api.SecuritySchemes {
		if _, ok := serverSchemeOf(s); ok {
			out = append(out, s)
		}
	}
	return out
}

// emitSecurityHandler emits the interface idemsrv.WithSecurity takes, one
// method per scheme, named by the scheme's GoName (unique among schemes,
// an exported identifier whatever the document's name):
//
//	type SecurityHandler interface {
//		BearerAuth(ctx context.Context, operation string, credential idemsrv.BearerCredential) (principal string, err error)
//	}
func (g *generation) emitSecurityHandler(schemes []*ir.SecurityScheme) jen.Code {
	var methods []jen.Code
	for _, s := range schemes {
		ss, _ := serverSchemeOf(s)
		methods = append(methods, g.comment(fmt.Sprintf("%s checks %s of the scheme %q for operation (its operationId) "+
			"and returns the principal it belongs to.", s.GoName, ss.what, s.Name)).
			Id(s.GoName).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("operation").String(),
			jen.Id("credential").Qual(srvPath, ss.cred)).Params(jen.Id("principal").String(), jen.Err().Error()))
	}
	return g.comment("SecurityHandler authenticates the requests of the operations under a security requirement, " +
		"before the ledger and the Handler run (idemsrv.WithSecurity): one method per security scheme of the document. " +
		"The principal a method returns scopes the operation's idempotency keys, so a refreshed credential of the same " +
		"principal finds its stored answer, and is idemsrv.Principal(ctx) in the Handler. An error answers 401, or 403 " +
		"when it wraps idemsrv.ErrForbidden; its text never reaches the client.").
		Type().Id("SecurityHandler").Interface(methods...)
}

// emitBindSecurity emits the function idemsrv.Engine.Secure calls with the
// WithSecurity value:
//
//	func bindSecurity(h any) ([]idemsrv.Scheme, bool) {
//		sh, ok := h.(SecurityHandler)
//		if !ok {
//			return nil, false
//		}
//		return []idemsrv.Scheme{idemsrv.BearerScheme("bearerAuth", sh.BearerAuth)}, true
//	}
func (g *generation) emitBindSecurity(schemes []*ir.SecurityScheme) jen.Code {
	var binds []jen.Code
	for _, s := range schemes {
		ss, _ := serverSchemeOf(s)
		binds = append(binds, jen.Line().Qual(srvPath, ss.ctor).Call(append(ss.args, jen.Id("sh").Dot(s.GoName))...))
	}
	binds = append(binds, jen.Line())
	name := g.securityNames[1]
	return g.comment(name+" binds the methods of h, the value given to idemsrv.WithSecurity, to the document's "+
		"security schemes; false when h is not a SecurityHandler.").
		Func().Id(name).Params(jen.Id("h").Any()).Params(jen.Index().Qual(srvPath, "Scheme"), jen.Bool()).Block(
		jen.List(jen.Id("sh"), jen.Id("ok")).Op(":=").Id("h").Assert(jen.Id(g.securityNames[0])),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.False())),
		jen.Return(jen.Index().Qual(srvPath, "Scheme").Values(binds...), jen.True()))
}

// emitSecure emits NewServer's call of Secure: the keyed operations under a
// security requirement (what the ledger scopes by principal) and the
// binding of the SecurityHandler (nil for a document without schemes).
func (g *generation) emitSecure(routes []*serverRoute) jen.Code {
	var secured []string
	for _, rt := range routes {
		if rt.unrouted == "" && rt.op.Retry.Safety == ir.Keyed && !serverStreams(rt.op) && !anonymousOnly(rt.op) {
			secured = append(secured, rt.op.ID)
		}
	}
	var list, bind jen.Code = jen.Nil(), jen.Nil()
	if len(secured) > 0 {
		list = stringSlice(secured)
	}
	if g.securityNames[1] != "" {
		bind = jen.Id(g.securityNames[1])
	}
	call := jen.Id("e").Dot("Secure").Call(list, bind)
	return jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
}

// anonymousOnly reports whether every security requirement of op is empty
// (or it has none): no credential scopes its keys.
func anonymousOnly(op *ir.Operation) bool {
	for _, req := range op.Security {
		if len(req.Schemes) > 0 {
			return false
		}
	}
	return true
}

// routeSecurity is the Security field of op's idemsrv.Route:
//
//	Security: [][]string{{"bearerAuth"}, {"apiKeyAuth"}},
func routeSecurity(op *ir.Operation) jen.Code {
	var reqs []jen.Code
	for _, req := range op.Security {
		items := make([]jen.Code, len(req.Schemes))
		for i, s := range req.Schemes {
			items[i] = jen.Lit(s)
		}
		reqs = append(reqs, jen.Values(items...))
	}
	return jen.Line().Id("Security").Op(":").Index().Index().String().Values(reqs...)
}

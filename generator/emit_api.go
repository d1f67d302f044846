package generator

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// clientMethod is the signature of one exported method of *Client.
type clientMethod struct {
	name            string
	params, results []jen.Code
}

// apiFile emits api_gen.go: the API interface and the assertion that
// *Client implements it.
func (g *generation) apiFile(ops []*ir.Operation) *jen.File {
	f := g.newFile()
	f.Add(g.emitAPI(ops)).Line()
	f.Var().Id("_").Id("API").Op("=").Parens(jen.Op("*").Id("Client")).Parens(jen.Nil())
	return f
}

// emitAPI emits the interface every method of *Client satisfies, for code
// that depends on the client and for its tests to mock it:
//
//	type API interface {
//		CreateOrder(ctx context.Context, body CreateOrderRequest, params CreateOrderParams,
//			opts ...idemrt.CallOption) (*CreateOrderResult, error)
//		...
//	}
func (g *generation) emitAPI(ops []*ir.Operation) jen.Code {
	methods := g.clientMethods(ops)
	slices.SortFunc(methods, func(a, b clientMethod) int { return strings.Compare(a.name, b.name) })
	decls := make([]jen.Code, len(methods))
	for i, m := range methods {
		decls[i] = jen.Id(m.name).Params(m.params...).Add(m.results...)
	}
	return g.comment("API is every method of Client, with the same signatures: depend on it where a test should " +
		"substitute the client, and mock it by hand or with mockgen. *Client implements it.").
		Type().Id("API").Interface(decls...)
}

// clientMethods lists the exported methods of *Client: each operation's
// main method, its <Op>Stream and <Op>Download forms, its Wait and Lookup
// methods, its iterators, LookupIntent, ResendIntent and WithServerURL. It follows the emitters' own choices (mainReturn, the
// names reserved in opIdents, planPager), so a method is listed exactly
// when it is emitted.
func (g *generation) clientMethods(ops []*ir.Operation) []clientMethod {
	var out []clientMethod
	add := func(name string, params []jen.Code, results jen.Code) {
		out = append(out, clientMethod{name: name, params: params, results: []jen.Code{results}})
	}
	for _, op := range ops {
		ids := g.opNames[op]
		add(op.GoName, g.methodArgs(op), g.mainResults(op))
		if ids.stream != "" {
			add(ids.stream, g.methodArgs(op), streamResults(g.eventType(streamMedia(op))))
		}
		if ids.download != "" {
			add(ids.download, g.methodArgs(op), downloadResults())
		}
		out = append(out, g.waitMethods(op)...)
		out = append(out, g.lookupMethods(op)...)
		if op.Pagination == nil || ids.iter == "" {
			continue
		}
		if plan, _ := g.planPager(op); plan != nil {
			add(ids.iter, g.iterParams(op), iterResults(plan.item))
			add(ids.pages, g.iterParams(op), iterResults(jen.Op("*").Add(plan.page.Clone())))
		}
	}
	out = append(out, g.intentMethod()...)
	out = append(out, resendMethod(ops)...)
	if len(g.serverURLs) > 0 {
		add("WithServerURL", []jen.Code{jen.List(jen.Id("declared"), jen.Id("serverURL")).String()},
			jen.Params(jen.Op("*").Id("Client"), jen.Error()))
	}
	return out
}

// waitMethods are op's Wait<Name> methods, as emitWaiters emits them.
func (g *generation) waitMethods(op *ir.Operation) []clientMethod {
	if len(op.Waiters) == 0 || g.noWaitMethod(op) != "" {
		return nil
	}
	var out []clientMethod
	for _, w := range op.Waiters {
		if name := g.waiterNames[w].method; name != "" {
			ret, _ := g.returns(op)
			out = append(out, clientMethod{name: name, params: g.waitParams(op), results: []jen.Code{ret}})
		}
	}
	return out
}

// mainResults is the result list of the method named after op.
func (g *generation) mainResults(op *ir.Operation) jen.Code {
	switch mainReturn(op) {
	case returnStream:
		return streamResults(g.eventType(streamMedia(op)))
	case returnDownload:
		return downloadResults()
	}
	ret, _ := g.returns(op)
	return ret
}

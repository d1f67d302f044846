package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// emitIter emits one iterator method, Iter (method "Items", yielding the
// items) or Pages (yielding the pages):
//
//	func (c *Client) ListCustomersIter(ctx context.Context, params ListCustomersParams,
//		opts ...idemrt.CallOption) iter.Seq2[Customer, error] {
//		return c.listCustomersPager(params, opts).Items(ctx)
//	}
func (g *generation) emitIter(plan *pagerPlan, name, method string, elem jen.Code) jen.Code {
	op, ids := plan.op, g.opNames[plan.op]
	args := g.iterParams(op)
	var doc *jen.Statement
	if method == "Items" {
		doc = g.commentLead(true, fmt.Sprintf("%s iterates the items of every page of %s (%s).", name, op.GoName, pagingWhat(plan.pag)),
			fmt.Sprintf("Pages are fetched as the loop needs them, each by one %s call under its retry contract, all drawing on the client's retry budget; "+
				"breaking out of the loop stops the requests. A failure ends the loop with an *idemrt.PageError: idemrt.CursorOf(err) is the cursor of the page that failed, "+
				"and idemrt.WithCursor(cursor) starts a new iteration there, with nothing missing and nothing twice.", op.GoName))
	} else {
		doc = g.commentLead(true, fmt.Sprintf("%s iterates the pages of %s, with their metadata; see %s.", name, op.GoName, ids.iter))
	}
	return doc.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(name).Params(args...).
		Add(iterResults(elem)).Block(
		jen.Return(jen.Id("c").Dot(ids.pager).Call(g.pagerCallArgs(op)...).Dot(method).Call(jen.Id("ctx"))))
}

// iterParams are the parameters of an iterator method: ctx, the page
// method's body and params, opts.
func (g *generation) iterParams(op *ir.Operation) []jen.Code {
	args := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	args = append(args, g.pagerArgs(op)...)
	return append(args, jen.Id("opts").Op("...").Qual(rtPath, "CallOption"))
}

// iterResults is an iterator method's result: iter.Seq2[elem, error].
func iterResults(elem jen.Code) jen.Code {
	return jen.Qual("iter", "Seq2").Types(elem, jen.Error())
}

// pagerArgs are the body and params arguments of the page method.
func (g *generation) pagerArgs(op *ir.Operation) []jen.Code {
	var args []jen.Code
	if plan := requestBody(op); plan != nil {
		args = append(args, jen.Id("body").Add(g.bodyType(plan)))
	}
	if ids := g.opNames[op]; ids.params != "" {
		args = append(args, jen.Id("params").Id(ids.params))
	}
	return args
}

// pagerCallArgs passes body, params and opts on to the pager constructor.
func (g *generation) pagerCallArgs(op *ir.Operation) []jen.Code {
	var args []jen.Code
	if requestBody(op) != nil {
		args = append(args, jen.Id("body"))
	}
	if g.opNames[op].params != "" {
		args = append(args, jen.Id("params"))
	}
	return append(args, jen.Id("opts"))
}

// pagingWhat says in words where the next page's cursor comes from.
func pagingWhat(p *ir.Pagination) string {
	switch {
	case p.Kind == ir.PageLink && len(p.Next) > 0:
		return fmt.Sprintf("link pagination: the next page's URL is the response field %s", p.Next)
	case p.Kind == ir.PageLink:
		return `link pagination: the next page's URL is the Link header's rel="next"`
	case p.Kind == ir.PageOffset:
		return fmt.Sprintf("offset pagination: %s is the number of items read", p.Param)
	case p.Kind == ir.PagePage:
		return fmt.Sprintf("page-number pagination: %s is 1, 2, ...", p.Param)
	case len(p.LastItem) > 0:
		return fmt.Sprintf("cursor pagination: %s is the last item's %s", p.Param, p.LastItem)
	}
	return fmt.Sprintf("cursor pagination: %s is the response field %s", p.Param, p.Cursor)
}

// emitPagerFunc emits the constructor of the operation's idemrt.Pager:
//
//	func (c *Client) listCustomersPager(params ListCustomersParams, opts []idemrt.CallOption) *idemrt.Pager[CustomerList, Customer] {
//		return &idemrt.Pager[CustomerList, Customer]{Kind: idemrt.PageCursor,
//			Start: idemrt.ParamCursor(params.StartingAfter), Opts: opts, Fetch: ..., ItemsOf: ..., Next: ..., HasMore: ...}
//	}
func (g *generation) emitPagerFunc(plan *pagerPlan) jen.Code {
	op, ids := plan.op, g.opNames[plan.op]
	typ := func() *jen.Statement {
		return jen.Qual(rtPath, "Pager").Types(plan.page.Clone(), plan.item.Clone())
	}
	vals := []jen.Code{jen.Line().Id("Kind").Op(":").Qual(rtPath, pageKinds[plan.pag.Kind])}
	if plan.param != "" {
		vals = append(vals, jen.Line().Id("Start").Op(":").Qual(rtPath, "ParamCursor").Call(jen.Id("params").Dot(plan.param)))
	}
	vals = append(vals,
		jen.Line().Id("Opts").Op(":").Id("opts"),
		jen.Line().Id("Fetch").Op(":").Add(g.emitFetch(plan)),
		jen.Line().Id("ItemsOf").Op(":").Add(g.emitItemsOf(plan)))
	for _, f := range []struct {
		name string
		code jen.Code
	}{{"Next", g.emitNext(plan)}, {"HasMore", g.emitHasMore(plan)}, {"Total", g.emitTotal(plan)}} {
		if f.code != nil {
			vals = append(vals, jen.Line().Id(f.name).Op(":").Add(f.code))
		}
	}
	vals = append(vals, jen.Line())
	args := g.pagerArgs(op)
	args = append(args, jen.Id("opts").Index().Qual(rtPath, "CallOption"))
	// Not inlined: inlined into both methods, its closures were compiled
	// three times, a third of the iterator code of GitHub's package.
	return g.comment(fmt.Sprintf("%s builds the idemrt.Pager of %s and %s.", ids.pager, ids.iter, ids.pages)).
		Comment("//").Line().Comment("//go:noinline").Line().
		Func().Params(jen.Id("c").Op("*").Id("Client")).Id(ids.pager).Params(args...).Op("*").Add(typ()).Block(
		jen.Return(jen.Op("&").Add(typ()).Values(vals...)))
}

// emitFetch emits the Fetch func: the cursor into its parameter, then the
// page method (a link pager adds the next URL as a call option itself):
//
//	func(ctx context.Context, cursor string, opts []idemrt.CallOption) (*CustomerList, error) {
//		if err := idemrt.SetCursor(&params.StartingAfter, cursor); err != nil {
//			return nil, err
//		}
//		return c.ListCustomers(ctx, params, opts...)
//	}
func (g *generation) emitFetch(plan *pagerPlan) jen.Code {
	op := plan.op
	cursor := jen.Id("_")
	var body []jen.Code
	if plan.param != "" {
		cursor = jen.Id("cursor")
		body = append(body, jen.If(
			jen.Err().Op(":=").Qual(rtPath, "SetCursor").Call(jen.Op("&").Id("params").Dot(plan.param), jen.Id("cursor")),
			jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	args := append([]jen.Code{jen.Id("ctx")}, g.pagerCallArgs(op)...)
	args[len(args)-1] = jen.Id("opts").Op("...")
	call := jen.Id("c").Dot(op.GoName).Call(args...)
	if plan.byValue {
		body = append(body,
			jen.List(jen.Id("page"), jen.Err()).Op(":=").Add(call),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Op("&").Id("page"), jen.Nil()))
	} else {
		body = append(body, jen.Return(call))
	}
	return jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), cursor.String(), jen.Id("opts").Index().Qual(rtPath, "CallOption")).
		Params(jen.Op("*").Add(plan.page.Clone()), jen.Error()).Block(body...)
}

// pageParam is the parameter p *P of the page funcs.
func (plan *pagerPlan) pageParam() jen.Code {
	return jen.Id("p").Op("*").Add(plan.page.Clone())
}

// emitItemsOf emits the ItemsOf func:
//
//	func(p *CustomerList) []Customer {
//		return p.Data
//	}
func (g *generation) emitItemsOf(plan *pagerPlan) jen.Code {
	checks, v, _ := plan.items.value(func() jen.Code { return jen.Return(jen.Nil()) }, "list")
	return jen.Func().Params(plan.pageParam()).Index().Add(plan.item.Clone()).Block(append(checks, jen.Return(v))...)
}

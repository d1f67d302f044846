package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// pagerPlan is what the iterators of a paginated operation need, resolved
// against the page method the operation already has.
type pagerPlan struct {
	op  *ir.Operation
	pag *ir.Pagination
	// page is P, the page method's result type without its pointer, and
	// byValue says the method returns P itself (a slice body).
	page    *jen.Statement
	byValue bool
	// body reads the decoded JSON body from p (*P): p, (*p) or p.Body; schema
	// is its schema.
	body   func() *jen.Statement
	schema *ir.Schema
	// items reads the page's item array; item is T.
	items access
	item  *jen.Statement
	// itemPtr: the items are pointers (nullable items).
	itemPtr bool
	// param is the params field of the cursor ("" for link pages).
	param string
}

// pageKinds maps the IR's kinds to the runtime's PageKind constants.
var pageKinds = map[ir.PaginationKind]string{
	ir.PageCursor: "PageCursor", ir.PageOffset: "PageOffset", ir.PagePage: "PageNumber", ir.PageLink: "PageLink",
}

// reservePagers names the iterator methods of every paginated operation:
// <Op>Iter and <Op>Pages beside the page method, and the unexported
// <op>Pager that builds their idemrt.Pager. A name another operation's
// method already has leaves the operation without iterators.
func (g *generation) reservePagers(ops []*ir.Operation) {
	methods := map[string]bool{}
	for _, op := range ops {
		methods[op.GoName] = true
	}
	for _, op := range ops {
		ids := g.opNames[op]
		iterName, pagesName := op.GoName+"Iter", op.GoName+"Pages"
		if op.Pagination == nil || methods[iterName] || methods[pagesName] {
			continue
		}
		methods[iterName], methods[pagesName] = true, true
		ids.iter, ids.pages, ids.pager = iterName, pagesName, lowerFirst(op.GoName)+"Pager"
	}
}

// emitPager emits an operation's iterators, or a comment saying why it has
// none when its page cannot be read with certainty (the page method stays).
func (g *generation) emitPager(op *ir.Operation) jen.Code {
	ids := g.opNames[op]
	if op.Pagination == nil {
		return nil
	}
	if ids.iter == "" {
		return g.comment(fmt.Sprintf("%s has no iterator methods: %sIter or %sPages is the name of another method.", op.GoName, op.GoName, op.GoName))
	}
	plan, why := g.planPager(op)
	if plan == nil {
		return g.comment(fmt.Sprintf("%s has no iterator methods: %s.", op.GoName, why))
	}
	return jen.Add(g.emitIter(plan, ids.iter, "Items", plan.item)).Line().Line().
		Add(g.emitIter(plan, ids.pages, "Pages", jen.Op("*").Add(plan.page.Clone()))).Line().Line().
		Add(g.emitPagerFunc(plan))
}

// planPager resolves the page type, the items and the cursor parameter;
// nil and the reason when one of them cannot be read through Go types.
func (g *generation) planPager(op *ir.Operation) (*pagerPlan, string) {
	plan := &pagerPlan{op: op, pag: op.Pagination}
	if why := g.planPage(plan); why != "" {
		return nil, why
	}
	if why := g.planParam(plan); why != "" {
		return nil, why
	}
	fail := func() jen.Code { return jen.Return(jen.Nil()) }
	items, ok := g.walk(plan.body, plan.schema, false, plan.pag.Items, fail)
	if !ok || items.ptr {
		return nil, fmt.Sprintf("the items %s are not a field of the page type", inlineText(plan.pag.Items.String()))
	}
	if d := items.schema.Deref(); d == nil || d.Kind != ir.KindArray {
		return nil, fmt.Sprintf("the items %s are not an array", inlineText(plan.pag.Items.String()))
	}
	plan.items = items
	plan.item, plan.itemPtr = g.elemType(items.schema)
	return plan, ""
}

// planPage finds the page type: the page method's result and where its
// JSON body is in it.
func (g *generation) planPage(plan *pagerPlan) string {
	op := plan.op
	var body *respBody
	for _, b := range successBodies(op) {
		if b.kind == bodyJSON {
			body = &b
			break
		}
	}
	if body == nil || body.schema == nil {
		return "its success response has no typed JSON body"
	}
	plan.schema = body.schema
	if result := g.opNames[op].result; result != "" {
		_, names := resultFields(op)
		field := names[body.key]
		plan.page, plan.body = jen.Id(result), func() *jen.Statement { return jen.Id("p").Dot(field) }
		return ""
	}
	if successBodies(op)[0].key != body.key {
		return "its page method does not return the JSON body"
	}
	plan.page, plan.byValue = g.bodyGoType(*body), byValue(*body)
	plan.body = func() *jen.Statement { return jen.Id("p") }
	if plan.byValue {
		plan.body = func() *jen.Statement { return jen.Parens(jen.Op("*").Id("p")) }
	}
	return ""
}

// planParam finds the params field the cursor goes into; its type must be
// one idemrt.SetCursor parses (a string, a number, an enum of those).
func (g *generation) planParam(plan *pagerPlan) string {
	if plan.pag.Kind == ir.PageLink {
		return ""
	}
	params, names := paramFields(plan.op)
	for i, p := range params {
		if p.In != ir.InQuery || p.Name != plan.pag.Param {
			continue
		}
		d := p.Type.Deref()
		kind := ir.KindAny
		if d != nil {
			kind = d.Kind
			if kind == ir.KindEnum {
				kind = d.EnumBase
			}
		}
		switch kind {
		case ir.KindString, ir.KindInteger, ir.KindNumber, ir.KindAny:
			plan.param = names[i]
			return ""
		}
		return fmt.Sprintf("the cursor parameter %q is a %s", inlineText(p.Name), kind)
	}
	return fmt.Sprintf("it has no query parameter %q", inlineText(plan.pag.Param))
}

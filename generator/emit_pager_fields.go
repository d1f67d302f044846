package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// failWith returns a fail func that returns vals.
func failWith(vals ...func() jen.Code) func() jen.Code {
	return func() jen.Code {
		out := make([]jen.Code, len(vals))
		for i, v := range vals {
			out[i] = v()
		}
		return jen.Return(out...)
	}
}

func emptyString() jen.Code { return jen.Lit("") }

func falseLit() jen.Code { return jen.False() }

// emitNext emits the Next func of a cursor pager (a response field, or a
// field of the last item) or of a link pager whose URL is in the body; nil
// when the runtime computes the next cursor (offset, page number, the Link
// header).
//
//	func(p *TaskPage, _ *http.Response) string {
//		if p.NextPageToken == nil {
//			return ""
//		}
//		return *p.NextPageToken
//	}
func (g *generation) emitNext(plan *pagerPlan) jen.Code {
	var body []jen.Code
	switch pag := plan.pag; {
	case len(pag.LastItem) > 0:
		body = g.lastItemCursor(plan)
	case len(pag.Cursor) > 0:
		body = g.pageCursor(plan, pag.Cursor)
	case pag.Kind == ir.PageLink && len(pag.Next) > 0:
		body = g.pageCursor(plan, pag.Next)
	default:
		return nil
	}
	return jen.Func().Params(plan.pageParam(), jen.Id("_").Op("*").Qual("net/http", "Response")).String().Block(body...)
}

// pageCursor reads a cursor field of the page: typed, or through its JSON
// form when Go fields cannot reach it.
func (g *generation) pageCursor(plan *pagerPlan, path ir.Field) []jen.Code {
	fail := failWith(emptyString)
	a, ok := g.walk(plan.body, plan.schema, false, path, fail)
	if body, ok := cursorReturn(a, ok, fail); ok {
		return body
	}
	return []jen.Code{jen.Return(jsonField(plan.body(), path))}
}

// cursorReturn returns the text of the value a reads, if it converts.
func cursorReturn(a access, ok bool, fail func() jen.Code) ([]jen.Code, bool) {
	if !ok {
		return nil, false
	}
	checks, v, ok := a.value(fail, "v")
	if !ok {
		return nil, false
	}
	text, ok := cursorText(a.schema, v)
	if !ok {
		return nil, false
	}
	return append(checks, jen.Return(text)), true
}

// lastItemCursor reads the cursor from the page's last item:
//
//	items := p.Data
//	if len(items) == 0 {
//		return ""
//	}
//	last := items[len(items)-1]
//	return last.ID
func (g *generation) lastItemCursor(plan *pagerPlan) []jen.Code {
	fail := failWith(emptyString)
	items, _ := g.walk(plan.body, plan.schema, false, plan.pag.Items, fail)
	checks, v, _ := items.value(fail, "list")
	body := append(checks,
		jen.Id("items").Op(":=").Add(v),
		jen.If(jen.Len(jen.Id("items")).Op("==").Lit(0)).Block(fail()),
		jen.Id("last").Op(":=").Id("items").Index(jen.Len(jen.Id("items")).Op("-").Lit(1)))
	last := func() *jen.Statement { return jen.Id("last") }
	a, ok := g.walk(last, items.schema.Deref().Items, plan.itemPtr, plan.pag.LastItem, fail)
	if ret, ok := cursorReturn(a, ok, fail); ok {
		return append(body, ret...)
	}
	return append(body, jen.Return(jsonField(jen.Id("last"), plan.pag.LastItem)))
}

// emitHasMore emits the HasMore func, when the contract names the field:
//
//	func(p *CustomerList) bool {
//		return p.HasMore
//	}
//
// A field Go types cannot reach is read as JSON ("true").
func (g *generation) emitHasMore(plan *pagerPlan) jen.Code {
	path := plan.pag.HasMore
	if len(path) == 0 {
		return nil
	}
	fail := failWith(falseLit)
	body := []jen.Code{jen.Return(jsonField(plan.body(), path).Op("==").Lit("true"))}
	if a, ok := g.walk(plan.body, plan.schema, false, path, fail); ok {
		if d := a.schema.Deref(); d != nil && d.Kind == ir.KindBool {
			if checks, v, ok := a.value(fail, "v"); ok {
				body = append(checks, jen.Return(v))
			}
		}
	}
	return jen.Func().Params(plan.pageParam()).Bool().Block(body...)
}

// emitTotal emits the Total func when the contract names the field and it
// is a plain integer field; without it the iteration stops at the first
// empty page, which is safe.
//
//	func(p *LogPage) (int64, bool) {
//		if p.Total == nil {
//			return 0, false
//		}
//		return int64(*p.Total), true
//	}
func (g *generation) emitTotal(plan *pagerPlan) jen.Code {
	path := plan.pag.Total
	if len(path) == 0 || plan.pag.Kind == ir.PageCursor || plan.pag.Kind == ir.PageLink {
		return nil
	}
	fail := failWith(func() jen.Code { return jen.Lit(0) }, falseLit)
	a, ok := g.walk(plan.body, plan.schema, false, path, fail)
	if d := a.schema.Deref(); !ok || d == nil || d.Kind != ir.KindInteger {
		return nil
	}
	checks, v, ok := a.value(fail, "v")
	if !ok {
		return nil
	}
	return jen.Func().Params(plan.pageParam()).Params(jen.Int64(), jen.Bool()).
		Block(append(checks, jen.Return(jen.Int64().Call(v), jen.True()))...)
}

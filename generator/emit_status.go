package generator

import (
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// statusCase is one branch of a switch on an answer's status: the response
// it is for and what it does.
type statusCase struct {
	resp *ir.Response
	code jen.Code
}

// statusCond is the condition that the status st is r's: st == 201, or
// st/100 == 2 for a class.
func statusCond(st func() *jen.Statement, r *ir.Response) jen.Code {
	if r.Class > 0 {
		return st().Op("/").Lit(100).Op("==").Lit(r.Class)
	}
	return st().Op("==").Lit(r.Status)
}

// byStatus handles an answer by its status: each group of bodies (one per
// response, in IR order) with each, a bodiless redirect with none. The first
// group is the default; the others get a case when they are handled
// differently, as does every bodiless redirect. Exact statuses are tested
// before classes, so that a 3XX without a body never takes a 307 declared
// with one.
func byStatus(st func() *jen.Statement, groups [][]respBody, bodiless []*ir.Response, each func([]respBody) jen.Code, none jen.Code) jen.Code {
	if len(groups) == 0 {
		return none
	}
	first := each(groups[0])
	var cases []statusCase
	for _, grp := range groups[1:] {
		if groupSignature(grp) != groupSignature(groups[0]) {
			cases = append(cases, statusCase{grp[0].resp, each(grp)})
		}
	}
	for _, r := range bodiless {
		cases = append(cases, statusCase{r, none})
	}
	if slices.ContainsFunc(bodiless, func(r *ir.Response) bool { return r.Class > 0 }) {
		cases = append(cases, statusCase{groups[0][0].resp, first})
	}
	if len(cases) == 0 {
		return first
	}
	slices.SortStableFunc(cases, func(a, b statusCase) int { return min(a.resp.Class, 1) - min(b.resp.Class, 1) })
	var out []jen.Code
	for _, c := range cases {
		out = append(out, jen.Case(statusCond(st, c.resp)).Block(c.code))
	}
	return jen.Switch().Block(append(out, jen.Default().Block(first))...)
}

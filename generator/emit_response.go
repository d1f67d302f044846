package generator

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// bodyType is the Go type of the body argument.
func (g *gen) bodyType(p *bodyPlan) jen.Code {
	switch p.kind {
	case bodyText:
		if p.optional {
			return jen.Op("*").String()
		}
		return jen.String()
	case bodyRaw:
		return jen.Qual("io", "Reader")
	}
	if p.optional {
		return g.optionalType(p.media.Schema)
	}
	return g.goType(p.media.Schema)
}

// emitBodyCall emits the Builder call that encodes the body, once; an
// optional body that is nil is not sent.
func (g *gen) emitBodyCall(p *bodyPlan) jen.Code {
	arg := jen.Id("body")
	var call *jen.Statement
	switch p.kind {
	case bodyForm:
		args := []jen.Code{arg}
		for _, e := range p.media.Encoding {
			if e.Style == ir.StyleDeepObject {
				args = append(args, jen.Lit(e.Property))
			}
		}
		call = jen.Id("b").Dot("FormBody").Call(args...)
	case bodyMultipart:
		call = jen.Id("b").Dot("MultipartBody").Call(arg)
	case bodyText:
		if p.optional {
			arg = jen.Op("*").Id("body")
		}
		call = jen.Id("b").Dot("TextBody").Call(jen.Lit(p.contentType()), arg)
	case bodyRaw:
		call = jen.Id("b").Dot("ReaderBody").Call(jen.Lit(p.contentType()), arg)
	default:
		call = jen.Id("b").Dot("JSONBody").Call(jen.Lit(p.contentType()), arg)
	}
	if p.optional {
		return jen.If(jen.Id("body").Op("!=").Nil()).Block(call)
	}
	return call
}

// bodyGoType is the Go type a success body decodes into.
func (g *gen) bodyGoType(b respBody) *jen.Statement {
	switch b.kind {
	case bodyText:
		return jen.String()
	case bodyRaw:
		return jen.Index().Byte()
	}
	return g.goType(b.schema)
}

// returns gives the method's result list and a function wrapping an error
// expression into a return value list.
func (g *gen) returns(op *ir.Operation) (jen.Code, func(jen.Code) jen.Code) {
	var typ *jen.Statement
	if ids := g.opNames[op]; ids.result != "" {
		typ = jen.Id(ids.result)
	} else if bodies := successBodies(op); len(bodies) > 0 {
		typ = g.bodyGoType(bodies[0])
	}
	if typ == nil {
		return jen.Error(), func(err jen.Code) jen.Code { return err }
	}
	return jen.Params(jen.Op("*").Add(typ), jen.Error()),
		func(err jen.Code) jen.Code { return jen.List(jen.Nil(), err) }
}

// resultFields names the body fields of an <Op>Result: Body for the first
// body type, Body<status> for each other one, keyed by type.
func resultFields(op *ir.Operation) ([]respBody, map[string]string) {
	distinct := distinctBodies(successBodies(op))
	names := map[string]string{}
	for i, b := range distinct {
		if i == 0 {
			names[b.key] = "Body"
			continue
		}
		names[b.key] = "Body" + statusLabel(b.resp)
	}
	return distinct, names
}

// statusLabel is "201", "2XX" or "default".
func statusLabel(r *ir.Response) string {
	if r.Default {
		return "default"
	}
	if r.Class > 0 {
		return strconv.Itoa(r.Class) + "XX"
	}
	return strconv.Itoa(r.Status)
}

// emitResult emits <Op>Result: the status, the decoded body (one field per
// distinct body type) and the declared response headers.
func (g *gen) emitResult(op *ir.Operation) jen.Code {
	ids := g.opNames[op]
	fields := []jen.Code{jen.Comment("StatusCode is the status of the final response.").Line().Id("StatusCode").Int()}
	used := namespace{"StatusCode": true}
	distinct, names := resultFields(op)
	for _, b := range distinct {
		used[names[b.key]] = true
		fields = append(fields, jen.Commentf("%s is the decoded body of a %s response.", names[b.key], statusLabel(b.resp)).Line().
			Id(names[b.key]).Add(g.bodyGoType(b)))
	}
	for _, h := range successHeaders(op) {
		name := used.claim(h.GoName, "Header")
		fields = append(fields, comment(fmt.Sprintf("%s is the %s response header (zero when absent or unparsable).", name, h.Name), h.Description).
			Id(name).Add(g.headerType(h)))
	}
	return jen.Commentf("%s is the result of %s.", ids.result, op.GoName).Line().
		Type().Id(ids.result).Struct(fields...)
}

// headerType is the Go type of a response header field: its scalar type, or
// a string for anything a header cannot carry as one value.
func (g *gen) headerType(h *ir.Header) jen.Code {
	d := h.Type.Deref()
	if d == nil {
		return jen.String()
	}
	switch d.Kind {
	case ir.KindInteger, ir.KindNumber, ir.KindBool, ir.KindEnum:
		return g.goType(h.Type)
	case ir.KindString:
		if d.Format == ir.FormatDateTime {
			return jen.Qual("time", "Time")
		}
	}
	return jen.String()
}

// emitDecode emits the statements that turn the response into the result.
func (g *gen) emitDecode(op *ir.Operation) []jen.Code {
	ids := g.opNames[op]
	if ids.result != "" {
		return g.emitDecodeResult(op)
	}
	bodies := successBodies(op)
	if len(bodies) == 0 {
		return []jen.Code{jen.Qual(rtPath, "Discard").Call(jen.Id("resp")), jen.Return(jen.Nil())}
	}
	return []jen.Code{
		jen.Id("out").Op(":=").New(g.bodyGoType(bodies[0])),
		decodeInto(bodies[0].kind, jen.Op("*").Id("out"), jen.Id("out")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
}

// decodeInto decodes resp into the value lv (whose address is ptr),
// assigning err.
func decodeInto(kind bodyKind, lv, ptr jen.Code) jen.Code {
	switch kind {
	case bodyText:
		return jen.List(lv, jen.Err()).Op("=").Qual(rtPath, "DecodeText").Call(jen.Id("resp"))
	case bodyRaw:
		return jen.List(lv, jen.Err()).Op("=").Qual(rtPath, "DecodeBytes").Call(jen.Id("resp"))
	}
	return jen.Err().Op("=").Qual(rtPath, "DecodeJSON").Call(jen.Id("resp"), ptr)
}

// emitDecodeResult fills an <Op>Result: headers, then the body of the
// status that arrived.
func (g *gen) emitDecodeResult(op *ir.Operation) []jen.Code {
	ids := g.opNames[op]
	out := []jen.Code{jen.Id("out").Op(":=").Op("&").Id(ids.result).Values(jen.Id("StatusCode").Op(":").Id("resp").Dot("StatusCode"))}
	used := namespace{"StatusCode": true}
	distinct, names := resultFields(op)
	for _, b := range distinct {
		used[names[b.key]] = true
	}
	for _, h := range successHeaders(op) {
		out = append(out, jen.Qual(rtPath, "HeaderInto").Call(jen.Id("resp").Dot("Header"), jen.Lit(h.Name),
			jen.Op("&").Id("out").Dot(used.claim(h.GoName, "Header"))))
	}
	out = append(out, g.decodeBodies(op, distinct, names))
	return append(out,
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("out"), jen.Nil()))
}

// decodeBodies decodes the body into the field of its status's type: a
// switch when the statuses have different types.
func (g *gen) decodeBodies(op *ir.Operation, distinct []respBody, names map[string]string) jen.Code {
	field := func(b respBody) jen.Code {
		f := names[b.key]
		return decodeInto(b.kind, jen.Id("out").Dot(f), jen.Op("&").Id("out").Dot(f))
	}
	switch len(distinct) {
	case 0:
		return jen.Qual(rtPath, "Discard").Call(jen.Id("resp"))
	case 1:
		return field(distinct[0])
	}
	var cases []jen.Code
	for _, b := range successBodies(op) {
		if b.key == distinct[0].key {
			continue
		}
		cond := jen.Id("resp").Dot("StatusCode").Op("==").Lit(b.resp.Status)
		if b.resp.Class > 0 {
			cond = jen.Id("resp").Dot("StatusCode").Op("/").Lit(100).Op("==").Lit(b.resp.Class)
		}
		cases = append(cases, jen.Case(cond).Block(field(b)))
	}
	cases = append(cases, jen.Default().Block(field(distinct[0])))
	return jen.Switch().Block(cases...)
}

// emitErrorModel emits the function that picks the declared error model of
// a status:
//
//	func createPaymentErrorModel(status int) any {
//		switch {
//		case status == 409:
//			return new(Conflict)
//		}
//		return new(Error) // default
//	}
//
// Exact statuses whose model is the default's are left to the fallback when
// no class case could catch them first.
func (g *gen) emitErrorModel(op *ir.Operation) jen.Code {
	ids := g.opNames[op]
	var classes []jen.Code
	var fallback jen.Code = jen.Nil()
	defaultKey := ""
	groups, order := map[string][]jen.Code{}, []respBody{}
	for _, b := range errorResponses(op) {
		switch {
		case b.resp.Default:
			fallback, defaultKey = jen.New(g.goType(b.schema)), b.key
			continue
		case b.resp.Class > 0:
			classes = append(classes, jen.Case(jen.Id("status").Op("/").Lit(100).Op("==").Lit(b.resp.Class)).
				Block(jen.Return(jen.New(g.goType(b.schema)))))
			continue
		}
		if _, ok := groups[b.key]; !ok {
			order = append(order, b)
		}
		groups[b.key] = append(groups[b.key], jen.Id("status").Op("==").Lit(b.resp.Status))
	}
	exact := make([]jen.Code, 0, len(order)+len(classes))
	for _, b := range order {
		if b.key == defaultKey && len(classes) == 0 {
			continue
		}
		exact = append(exact, jen.Case(groups[b.key]...).Block(jen.Return(jen.New(g.goType(b.schema)))))
	}
	var body []jen.Code
	if all := append(exact, classes...); len(all) > 0 {
		body = append(body, jen.Switch().Block(all...))
	}
	body = append(body, jen.Return(fallback))
	return jen.Commentf("%s returns a new value of the error model %s declares for status, or nil.", ids.errorModel, op.GoName).Line().
		Func().Id(ids.errorModel).Params(jen.Id("status").Int()).Any().Block(body...)
}

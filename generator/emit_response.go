package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// bodyType is the Go type of the body argument.
func (g *generation) bodyType(p *bodyPlan) jen.Code {
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
// optional body that is nil is not sent, except a form, which is then an
// empty form:
//
//	b.JSONBody("application/json", body)
//
//	if body != nil {
//		b.TextBody("text/plain", *body)
//	}
func (g *generation) emitBodyCall(p *bodyPlan) jen.Code {
	arg := jen.Id("body")
	var call *jen.Statement
	switch p.kind {
	case bodyForm:
		call = jen.Id("b").Dot("FormBody").Call(lines(arg, encodingLiterals(p))...)
	case bodyMultipart:
		call = jen.Id("b").Dot("MultipartBody").Call(lines(arg, encodingLiterals(p))...)
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
	if p.optional && p.kind != bodyForm {
		return jen.If(jen.Id("body").Op("!=").Nil()).Block(call)
	}
	// A nil optional form is an empty form, sent with its Content-Type:
	// form-reading servers (Stripe) refuse a POST without one, and an
	// empty form is a valid form.
	return call
}

// encodingLiterals renders the encodings of a form or multipart body that
// change how a property is sent:
//
//	wire.Encoding{Property: "tags", Style: wire.StyleForm}
//	wire.Encoding{Property: "metadata", ContentType: "application/json"}
//
// Forms pass the style and explode of properties not sent the default way
// (form, exploded); multipart passes declared part types and the deepObject
// style.
func encodingLiterals(p *bodyPlan) []jen.Code {
	var out []jen.Code
	for _, e := range p.media.Encoding {
		var vals []jen.Code
		switch {
		case p.kind == bodyForm && !(e.Explode && e.Style == ir.StyleForm):
			vals = append(vals, jen.Id("Style").Op(":").Add(styleConst(e.Style)))
			if e.Explode {
				vals = append(vals, jen.Id("Explode").Op(":").True())
			}
		case p.kind == bodyMultipart && e.ContentType != "":
			vals = append(vals, jen.Id("ContentType").Op(":").Lit(e.ContentType))
		case p.kind == bodyMultipart && e.Style == ir.StyleDeepObject:
			// The only style a multipart part honours: Stripe reads
			// bracketed parts (file_link_data[create]=true).
			vals = append(vals, jen.Id("Style").Op(":").Add(styleConst(e.Style)), jen.Id("Explode").Op(":").Lit(e.Explode))
		default:
			continue
		}
		out = append(out, jen.Qual(wirePath, "Encoding").Values(append([]jen.Code{jen.Id("Property").Op(":").Lit(e.Property)}, vals...)...))
	}
	return out
}

// lines lays out call arguments one per line when there is more than the
// first, so long encoding lists stay readable.
func lines(first jen.Code, rest []jen.Code) []jen.Code {
	if len(rest) == 0 {
		return []jen.Code{first}
	}
	out := []jen.Code{first}
	for _, c := range rest {
		out = append(out, jen.Line().Add(c))
	}
	return append(out, jen.Line())
}

// bodyGoType is the Go type a success body decodes into.
func (g *generation) bodyGoType(b respBody) *jen.Statement {
	switch b.kind {
	case bodyText:
		return jen.String()
	case bodyRaw:
		return jen.Index().Byte()
	}
	return g.goType(b.schema)
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
func (g *generation) emitErrorModel(op *ir.Operation) jen.Code {
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
	if len(classes) > 0 || defaultKey != "" {
		// A status declared without a body must not borrow a class's or
		// the default's model.
		if c := bodilessErrorCase(op); c != nil {
			exact = append(exact, c)
		}
	}
	var body []jen.Code
	if all := append(exact, classes...); len(all) > 0 {
		body = append(body, jen.Switch().Block(all...))
	}
	body = append(body, jen.Return(fallback))
	return jen.Commentf("%s returns a new value of the error model %s declares for status, or nil.", ids.errorModel, op.GoName).Line().
		Func().Id(ids.errorModel).Params(jen.Id("status").Int()).Any().Block(body...)
}

// bodilessErrorCase is the case of the exact error statuses declared without
// a JSON body ("case status == 503: return nil"), or nil when there are none.
func bodilessErrorCase(op *ir.Operation) jen.Code {
	var conds []jen.Code
	for _, r := range op.Responses {
		if r.Status >= 400 && pickJSON(r.Content) == nil {
			conds = append(conds, jen.Id("status").Op("==").Lit(r.Status))
		}
	}
	if len(conds) == 0 {
		return nil
	}
	return jen.Case(conds...).Block(jen.Return(jen.Nil()))
}

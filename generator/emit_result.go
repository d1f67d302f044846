package generator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// returns gives the method's result list and a function wrapping an error
// expression into a return value list. A body whose Go type already has a
// nil value (a slice, a map, raw JSON) is returned by value: []Order, not
// *[]Order.
func (g *generation) returns(op *ir.Operation) (jen.Code, func(jen.Code) jen.Code) {
	var typ *jen.Statement
	if ids := g.opNames[op]; ids.result != "" {
		typ = jen.Op("*").Id(ids.result)
	} else if bodies := successBodies(op); len(bodies) > 0 {
		typ = g.bodyGoType(bodies[0])
		if !byValue(bodies[0]) {
			typ = jen.Op("*").Add(typ)
		}
	}
	if typ == nil {
		return jen.Error(), func(err jen.Code) jen.Code { return err }
	}
	return jen.Params(typ, jen.Error()),
		func(err jen.Code) jen.Code { return jen.List(jen.Nil(), err) }
}

// resultFields names the body fields of an <Op>Result, keyed by type: Body
// for the first body type, Body<status> for each other status's; a
// response that declares several kinds of media adds Text or Bytes for its
// string and []byte bodies (Body200Text, or BodyText on the first status).
func resultFields(op *ir.Operation) ([]respBody, map[string]string) {
	distinct := distinctBodies(resultBodies(op))
	names := map[string]string{}
	used := namespace{"StatusCode": true, "ContentType": true}
	for i, b := range distinct {
		name := "Body"
		if i > 0 && b.resp != distinct[0].resp {
			name += statusLabel(b.resp)
		}
		if b.multi {
			name += map[bodyKind]string{bodyText: "Text", bodyRaw: "Bytes"}[b.kind]
		}
		names[b.key] = used.claim(name, "_")
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

// emitResult emits <Op>Result: the status, the media type when it picks
// the body, the decoded body (one field per distinct body type) and the
// declared response headers:
//
//	// CreateOrderResult is the result of CreateOrder.
//	type CreateOrderResult struct {
//		// StatusCode is the status of the final response.
//		StatusCode int
//		// Body is the decoded body of a 201 response.
//		Body Order
//		// Location is the Location response header (zero when absent or unparsable).
//		Location string
//	}
func (g *generation) emitResult(op *ir.Operation) jen.Code {
	ids := g.opNames[op]
	fields := []jen.Code{jen.Comment("StatusCode is the status of the final response.").Line().Id("StatusCode").Int()}
	used := namespace{"StatusCode": true}
	if multiMedia(op) {
		used["ContentType"] = true
		fields = append(fields, jen.Comment("ContentType is the media type of the body received, which picked the field it was decoded into.").Line().
			Id("ContentType").String())
	}
	distinct, names := resultFields(op)
	for _, b := range distinct {
		used[names[b.key]] = true
		fields = append(fields, jen.Commentf("%s is the decoded body of a %s response.", names[b.key], bodyWhat(b)).Line().
			Id(names[b.key]).Add(g.bodyGoType(b)))
	}
	for _, h := range successHeaders(op) {
		name := used.claim(h.GoName, "Header")
		fields = append(fields, g.comment(fmt.Sprintf("%s is the %s response header (zero when absent or unparsable).", name, h.Name), h.Description).
			Id(name).Add(g.headerType(h)))
	}
	return jen.Commentf("%s is the result of %s.", ids.result, op.GoName).Line().
		Type().Id(ids.result).Struct(fields...)
}

// bodyWhat names the response and, when the Content-Type picks the body,
// the media types of the field ("200 (text/csv)").
func bodyWhat(b respBody) string {
	if !b.multi {
		return statusLabel(b.resp)
	}
	return statusLabel(b.resp) + " (" + inlineText(strings.Join(b.types, ", ")) + ")"
}

// headerType is the Go type of a response header field: its scalar type, or
// a string for anything a header cannot carry as one value.
func (g *generation) headerType(h *ir.Header) jen.Code {
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

// emitDecode emits the statements that turn the response into the result:
// emitDecodeResult's for an <Op>Result, else the one body, or nothing:
//
//	out := new(Order)
//	err = idemrt.DecodeJSON(resp, out)
//	if err != nil {
//		return nil, err
//	}
//	return out, nil
//
//	var out []Order // nilable types by value
//	err = idemrt.DecodeJSON(resp, &out)
//
//	idemrt.Discard(resp)
//	return nil
func (g *generation) emitDecode(op *ir.Operation) []jen.Code {
	ids := g.opNames[op]
	if ids.result != "" {
		return g.emitDecodeResult(op)
	}
	bodies := successBodies(op)
	if len(bodies) == 0 {
		return []jen.Code{jen.Qual(rtPath, "Discard").Call(jen.Id("resp")), jen.Return(jen.Nil())}
	}
	if byValue(bodies[0]) {
		return []jen.Code{
			jen.Var().Id("out").Add(g.bodyGoType(bodies[0])),
			decodeInto(bodies[0].kind, jen.Id("out"), jen.Op("&").Id("out")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("out"), jen.Nil()),
		}
	}
	return []jen.Code{
		jen.Id("out").Op(":=").New(g.bodyGoType(bodies[0])),
		decodeInto(bodies[0].kind, jen.Op("*").Id("out"), jen.Id("out")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
}

// byValue reports whether a success body is returned by value: a JSON body
// whose Go type is nilable (slices, maps, raw JSON), so that no body is nil
// and a pointer would add nothing but a dereference.
func byValue(b respBody) bool {
	return b.kind == bodyJSON && (b.schema == nil || b.schema.HasNilZero())
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
// status that arrived (a switch on the status when statuses decode into
// different fields):
//
//	out := &CreateOrderResult{StatusCode: resp.StatusCode}
//	wire.HeaderInto(resp.Header, "Location", &out.Location)
//	err = idemrt.DecodeJSON(resp, &out.Body)
//	if err != nil {
//		return nil, err
//	}
//	return out, nil
func (g *generation) emitDecodeResult(op *ir.Operation) []jen.Code {
	ids := g.opNames[op]
	out := []jen.Code{jen.Id("out").Op(":=").Op("&").Id(ids.result).Values(jen.Id("StatusCode").Op(":").Id("resp").Dot("StatusCode"))}
	used := namespace{"StatusCode": true}
	if multiMedia(op) {
		used["ContentType"] = true
	}
	distinct, names := resultFields(op)
	for _, b := range distinct {
		used[names[b.key]] = true
	}
	for _, h := range successHeaders(op) {
		out = append(out, jen.Qual(wirePath, "HeaderInto").Call(jen.Id("resp").Dot("Header"), jen.Lit(h.Name),
			jen.Op("&").Id("out").Dot(used.claim(h.GoName, "Header"))))
	}
	out = append(out, decodeBodies(op, names))
	return append(out,
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("out"), jen.Nil()))
}

// decodeBodies decodes the body into the field of its status's type: a
// switch on the status when statuses decode differently (byStatus), the
// first one's way as the default; a declared redirect without a body is
// discarded.
func decodeBodies(op *ir.Operation, names map[string]string) jen.Code {
	status := func() *jen.Statement { return jen.Id("resp").Dot("StatusCode") }
	each := func(grp []respBody) jen.Code { return decodeGroup(grp, names) }
	return byStatus(status, responseGroups(resultBodies(op)), bodilessRedirects(op), each,
		jen.Qual(rtPath, "Discard").Call(jen.Id("resp")))
}

// responseGroups splits bodies (in IR order) into one group per response.
func responseGroups(bodies []respBody) [][]respBody {
	var out [][]respBody
	for _, b := range bodies {
		if n := len(out); n > 0 && out[n-1][0].resp == b.resp {
			out[n-1] = append(out[n-1], b)
			continue
		}
		out = append(out, []respBody{b})
	}
	return out
}

// groupSignature identifies how a response decodes: the keys of its bodies.
func groupSignature(grp []respBody) string {
	keys := make([]string, len(grp))
	for i, b := range grp {
		keys[i] = b.key
	}
	return strings.Join(keys, "|")
}

// decodeGroup decodes one response: into its one field, or, when it
// declares several kinds of media, by the Content-Type received:
//
//	out.ContentType, err = idemrt.DecodeMedia(resp, idemrt.Media{JSON: &out.Body, Text: &out.BodyText,
//		Types: []string{"application/json", "text/csv"}})
func decodeGroup(grp []respBody, names map[string]string) jen.Code {
	if !grp[0].multi {
		f := names[grp[0].key]
		return decodeInto(grp[0].kind, jen.Id("out").Dot(f), jen.Op("&").Id("out").Dot(f))
	}
	var vals []jen.Code
	var types []jen.Code
	for _, b := range grp {
		field := map[bodyKind]string{bodyJSON: "JSON", bodyText: "Text", bodyRaw: "Bytes"}[b.kind]
		vals = append(vals, jen.Line().Id(field).Op(":").Op("&").Id("out").Dot(names[b.key]))
		for _, t := range b.types {
			types = append(types, jen.Lit(t))
		}
	}
	vals = append(vals, jen.Line().Id("Types").Op(":").Index().String().Values(types...), jen.Line())
	return jen.List(jen.Id("out").Dot("ContentType"), jen.Err()).Op("=").
		Qual(rtPath, "DecodeMedia").Call(jen.Id("resp"), jen.Qual(rtPath, "Media").Values(vals...))
}

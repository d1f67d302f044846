package generator

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// emitRoute emits what the server enforces for one operation before its
// handler runs:
//
//	var createOrderRoute = idemsrv.Route{
//		Op:          &createOrderOp,
//		Credentials: []idemsrv.Credential{{In: "header", Name: "Authorization"}},
//		Declared:    idemrt.StatusSet{Codes: []int{401, 409, 422, 429}},
//		Default:     true,
//	}
func (g *generation) emitRoute(op *ir.Operation) jen.Code {
	vals := []jen.Code{jen.Line().Id("Op").Op(":").Op("&").Id(g.opNames[op].contract)}
	if op.Query != "" {
		vals = append(vals, jen.Line().Id("Query").Op(":").Lit(op.Query))
	}
	if creds := g.routeCredentials(op); len(creds) > 0 {
		var items []jen.Code
		for _, c := range creds {
			items = append(items, jen.Values(jen.Id("In").Op(":").Lit(c[0]), jen.Id("Name").Op(":").Lit(c[1])))
		}
		vals = append(vals, jen.Line().Id("Credentials").Op(":").Index().Qual(srvPath, "Credential").Values(items...))
	}
	if anonymousAllowed(op) {
		vals = append(vals, jen.Line().Id("Anonymous").Op(":").True())
	}
	if len(op.Security) > 0 {
		vals = append(vals, routeSecurity(op))
	}
	if pre := preconditions(op); len(pre) > 0 {
		vals = append(vals, jen.Line().Id("Preconditions").Op(":").Add(stringSlice(pre)))
	}
	if op.Retry.Safety == ir.Keyed {
		vals = append(vals, keyedRouteFields(op)...)
	}
	set, def := errorStatuses(op)
	if len(set.Codes) > 0 || len(set.Classes) > 0 {
		vals = append(vals, jen.Line().Id("Declared").Op(":").Add(statusSet(set)))
	}
	if def {
		vals = append(vals, jen.Line().Id("Default").Op(":").True())
	}
	if media := errorMediaTypes(op); len(media) > 0 {
		vals = append(vals, jen.Line().Id("ErrorMediaTypes").Op(":").Map(jen.Int()).String().Values(media...))
	}
	if serverStreams(op) {
		vals = append(vals, jen.Line().Id("Stream").Op(":").Add(streamFormat(op)))
	}
	vals = append(vals, jen.Line())
	name := g.opNames[op].route
	return jen.Commentf("%s is what the server checks for %s before its handler runs.", name, op.GoName).Line().
		Var().Id(name).Op("=").Qual(srvPath, "Route").Values(vals...)
}

// keyedRouteFields emits what a keyed operation's ledger needs from the
// spec: the header and cookie parameters that join the fingerprint, and
// the declared response headers it stores for replay.
func keyedRouteFields(op *ir.Operation) []jen.Code {
	var vals []jen.Code
	for _, f := range []struct {
		name  string
		names []string
	}{{"FingerprintHeaders", headerParams(op)}, {"FingerprintCookies", cookieParams(op)}, {"StoredHeaders", declaredHeaders(op)}} {
		if len(f.names) > 0 {
			vals = append(vals, jen.Line().Id(f.name).Op(":").Add(stringSlice(f.names)))
		}
	}
	return vals
}

// errorMediaTypes lists, as map entries keyed by status (class digit, 0 for
// the default), the JSON media types of op's error responses that are not
// application/json, so the server sends what the spec declares
// (application/problem+json): the first JSON one of each response.
func errorMediaTypes(op *ir.Operation) []jen.Code {
	var out []jen.Code
	for _, r := range op.Responses {
		if r.IsSuccess() || isRedirect(r) {
			continue
		}
		key := r.Status
		if r.Class > 0 {
			key = r.Class
		} else if r.Default {
			key = 0
		}
		for _, m := range r.Content {
			if isJSONMedia(m.Name) {
				if m.Name != "application/json" {
					out = append(out, jen.Lit(key).Op(":").Lit(m.Name))
				}
				break
			}
		}
	}
	return out
}

// stringSlice renders a []string literal.
func stringSlice(ss []string) jen.Code {
	items := make([]jen.Code, len(ss))
	for i, s := range ss {
		items[i] = jen.Lit(s)
	}
	return jen.Index().String().Values(items...)
}

// emitServeOp emits the method that decodes one operation's request,
// calls the handler and writes its answer:
//
//	func (s *Server) serveGetOrder(w http.ResponseWriter, r *http.Request) {
//		var params GetOrderParams
//		d := s.engine.Decode(w, r)
//		d.Path(wire.Param{Name: "order_id", Style: wire.StyleSimple}, 0, &params.OrderID)
//		if d.Failed() {
//			return
//		}
//		out, err := s.h.GetOrder(r.Context(), params)
//		if err != nil {
//			s.engine.WriteError(w, r, &getOrderRoute, err)
//			return
//		}
//		idemsrv.SetHeader(w, "ETag", out.ETag)
//		idemsrv.WriteJSON(w, idemsrv.Status(out.StatusCode, 200), out.Body)
//	}
func (g *generation) emitServeOp(rt *serverRoute) jen.Code {
	op := rt.op
	ids := g.opNames[op]
	body, args := g.serveDecodes(rt)
	body = append(body, emitNegotiate(op)...)
	call := jen.Id("s").Dot("h").Dot(op.GoName).Call(args...)
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(
		jen.Id("s").Dot("engine").Dot("WriteError").Call(jen.Id("w"), jen.Id("r"), jen.Op("&").Id(ids.route), jen.Err()),
		jen.Return())
	switch {
	case serverStreams(op):
		body = append(body, g.serveStreamCall(op, op.GoName, ids.route, args))
	case !g.returnsValue(op):
		body = append(body, jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(
			jen.Id("s").Dot("engine").Dot("WriteError").Call(jen.Id("w"), jen.Id("r"), jen.Op("&").Id(ids.route), jen.Err()),
			jen.Return()),
			jen.Qual(srvPath, "WriteEmpty").Call(jen.Id("w"), jen.Lit(successStatus(op))))
	default:
		body = append(body, jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(call), fail)
		body = append(body, g.emitRespond(op)...)
	}
	return jen.Commentf("serve%s decodes a %s request, calls the handler and writes its answer.", op.GoName, op.GoName).Line().
		Func().Params(jen.Id("s").Op("*").Id("Server")).Id("serve"+op.GoName).
		Params(jen.Id("w").Qual("net/http", "ResponseWriter"), jen.Id("r").Op("*").Qual("net/http", "Request")).Block(body...)
}

// serveDecodes emits the statements that decode a request's parameters
// and body (answering a failure), and the handler call's arguments.
func (g *generation) serveDecodes(rt *serverRoute) (body, args []jen.Code) {
	ids := g.opNames[rt.op]
	args = []jen.Code{jen.Id("r").Dot("Context").Call()}
	plan := requestBody(rt.op)
	if plan != nil {
		body = append(body, jen.Var().Id("body").Add(g.bodyType(plan)))
		args = append(args, jen.Id("body"))
	}
	if ids.params != "" {
		body = append(body, jen.Var().Id("params").Id(ids.params))
		args = append(args, jen.Id("params"))
	}
	if plan != nil || ids.params != "" {
		body = append(body, jen.Id("d").Op(":=").Id("s").Dot("engine").Dot("Decode").Call(jen.Id("w"), jen.Id("r")))
		body = append(body, g.emitParamDecodes(rt)...)
		if plan != nil {
			body = append(body, bodyDecode(plan))
		}
		body = append(body, jen.If(jen.Id("d").Dot("Failed").Call()).Block(jen.Return()))
	}
	return body, args
}

// emitParamDecodes emits one Request call per parameter, in the order the
// client's Builder places them.
func (g *generation) emitParamDecodes(rt *serverRoute) []jen.Code {
	op := rt.op
	var out []jen.Code
	if op.Retry.Safety == ir.Keyed {
		out = append(out, jen.Id("d").Dot("Key").Call(jen.Lit(op.Retry.KeyName), jen.Op("&").Id("params").Dot("IdempotencyKey")))
	}
	params, names := paramFields(op)
	for i, p := range params {
		dst := jen.Op("&").Id("params").Dot(names[i])
		switch p.In {
		case ir.InPath:
			out = append(out, jen.Id("d").Dot("Path").Call(paramLiteral(p), jen.Lit(pathIndex(rt, p.Name)), dst))
		case ir.InQuery:
			out = append(out, jen.Id("d").Dot("Query").Call(paramLiteral(p), dst))
		case ir.InHeader:
			out = append(out, jen.Id("d").Dot("Header").Call(paramLiteral(p), dst))
		case ir.InCookie:
			out = append(out, jen.Id("d").Dot("Cookie").Call(paramLiteral(p), dst))
		}
	}
	return out
}

// bodyDecode emits the Request call that reads the body, with the
// encodings of a form's properties as the client sends them:
//
//	d.JSON(&body, true)
//	d.Form(&body, true, wire.Encoding{Property: "expand", Style: wire.StyleDeepObject, Explode: true})
func bodyDecode(p *bodyPlan) jen.Code {
	if p.kind == bodyForm || p.kind == bodyMultipart {
		method := map[bodyKind]string{bodyForm: "Form", bodyMultipart: "Multipart"}[p.kind]
		if enc := encodingLiterals(p); len(enc) > 0 {
			args := append([]jen.Code{jen.Lit(!p.optional)}, enc...)
			return jen.Id("d").Dot(method).Call(lines(jen.Op("&").Id("body"), args)...)
		}
		return jen.Id("d").Dot(method).Call(jen.Op("&").Id("body"), jen.Lit(!p.optional))
	}
	method := map[bodyKind]string{bodyJSON: "JSON", bodyText: "Text", bodyRaw: "Bytes"}[p.kind]
	return jen.Id("d").Dot(method).Call(jen.Op("&").Id("body"), jen.Lit(!p.optional))
}

// emitRespond emits the statements that write a handler's answer: the
// result's headers, then its body with its status (the first declared 2xx
// when the handler leaves StatusCode zero).
func (g *generation) emitRespond(op *ir.Operation) []jen.Code {
	ids := g.opNames[op]
	def := successStatus(op)
	if mainReturn(op) == returnDownload {
		return []jen.Code{writeDownload(op)}
	}
	if ids.result == "" {
		b := successBodies(op)[0]
		return []jen.Code{writeBody(b, jen.Lit(def), jen.Id("out"))}
	}
	out := []jen.Code{
		jen.If(jen.Id("out").Op("==").Nil()).Block(
			jen.Id("s").Dot("engine").Dot("WriteError").Call(jen.Id("w"), jen.Id("r"), jen.Op("&").Id(ids.route), jen.Qual(srvPath, "ErrNilResult")),
			jen.Return()),
	}
	used := namespace{"StatusCode": true}
	_, names := resultFields(op)
	for _, b := range distinctBodies(resultBodies(op)) {
		used[names[b.key]] = true
	}
	for _, h := range successHeaders(op) {
		out = append(out, jen.Qual(srvPath, "SetHeader").Call(jen.Id("w"), jen.Lit(h.Name), jen.Id("out").Dot(used.claim(h.GoName, "Header"))))
	}
	out = append(out, jen.Id("st").Op(":=").Qual(srvPath, "Status").Call(jen.Id("out").Dot("StatusCode"), jen.Lit(def)))
	return append(out, writeBodies(op, names))
}

// writeBodies writes the field of the status's body type: a switch on the
// status when statuses carry different types (byStatus), the first one's
// otherwise; a declared redirect without a body is written empty.
func writeBodies(op *ir.Operation, names map[string]string) jen.Code {
	status := func() *jen.Statement { return jen.Id("st") }
	each := func(grp []respBody) jen.Code { return writeGroup(grp, jen.Id("st"), names) }
	return byStatus(status, responseGroups(resultBodies(op)), bodilessRedirects(op), each,
		jen.Qual(srvPath, "WriteEmpty").Call(jen.Id("w"), jen.Id("st")))
}

// writeBody writes one body of kind b.kind:
//
//	idemsrv.WriteJSON(w, st, out.Body)
//	idemsrv.WriteText(w, st, "text/csv", out.Body)
func writeBody(b respBody, status, v jen.Code) jen.Code {
	if b.kind == bodyJSON {
		return jen.Qual(srvPath, "WriteJSON").Call(jen.Id("w"), status, v)
	}
	ct := b.types[0]
	if strings.Contains(ct, "*") {
		ct = "application/octet-stream"
	}
	return jen.Qual(srvPath, "WriteText").Call(jen.Id("w"), status, jen.Lit(ct), v)
}

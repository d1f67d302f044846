package generator

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// handlerReturns is the result list of a Handler method: the client
// method's, except for a download, whose server form is
// (*idemsrv.Download, error): the content to serve with its validators,
// where the client receives an *idemrt.Body to read.
func (g *generation) handlerReturns(op *ir.Operation) jen.Code {
	if mainReturn(op) == returnDownload {
		return jen.Params(jen.Op("*").Qual(srvPath, "Download"), jen.Error())
	}
	ret, _ := g.returns(op)
	return ret
}

// writeDownload serves a download handler's answer, with ranges when its
// content is seekable:
//
//	s.engine.WriteDownload(w, r, 200, "application/pdf", out)
func writeDownload(op *ir.Operation) jen.Code {
	def := "application/octet-stream"
	if types := binaryTypes(op); len(types) > 0 && !strings.Contains(types[0], "*") {
		def = types[0]
	}
	return jen.Id("s").Dot("engine").Dot("WriteDownload").Call(jen.Id("w"), jen.Id("r"), jen.Lit(successStatus(op)), jen.Lit(def), jen.Id("out"))
}

// successTypes lists, once each in IR order, the media types of the
// success bodies: what the client's Accept header names.
func successTypes(op *ir.Operation) []string {
	var out []string
	for _, b := range successBodies(op) {
		for _, t := range b.types {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// emitNegotiate emits, for an operation whose answer has several media
// types, the choice of the type before the handler runs (406 when the
// Accept header allows none), handed to it in the context:
//
//	mt, ok := idemsrv.Negotiate(r, []string{"application/json", "text/csv"})
//	if !ok {
//		idemsrv.NotAcceptable(w, []string{"application/json", "text/csv"})
//		return
//	}
//	r = r.WithContext(idemsrv.WithMediaType(r.Context(), mt))
func emitNegotiate(op *ir.Operation) []jen.Code {
	if !multiMedia(op) {
		return nil
	}
	types := stringSlice(successTypes(op))
	return []jen.Code{
		jen.List(jen.Id("mt"), jen.Id("ok")).Op(":=").Qual(srvPath, "Negotiate").Call(jen.Id("r"), types),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Qual(srvPath, "NotAcceptable").Call(jen.Id("w"), jen.Add(types)), jen.Return()),
		jen.Id("r").Op("=").Id("r").Dot("WithContext").Call(
			jen.Qual(srvPath, "WithMediaType").Call(jen.Id("r").Dot("Context").Call(), jen.Id("mt"))),
	}
}

// writeGroup writes the body of one response: its one field, or, when it
// declares several kinds of media, the field of the type negotiated:
//
//	s.engine.WriteMedia(w, r, st, out.ContentType,
//		idemsrv.Media{Types: []string{"application/json"}, JSON: true, Value: out.Body},
//		idemsrv.Media{Types: []string{"text/csv"}, Value: out.BodyText})
func writeGroup(grp []respBody, status jen.Code, names map[string]string) jen.Code {
	if !grp[0].multi {
		return writeBody(grp[0], status, jen.Id("out").Dot(names[grp[0].key]))
	}
	args := []jen.Code{jen.Id("w"), jen.Id("r"), status, jen.Id("out").Dot("ContentType")}
	for _, b := range grp {
		vals := []jen.Code{jen.Id("Types").Op(":").Add(stringSlice(b.types))}
		if b.kind == bodyJSON {
			vals = append(vals, jen.Id("JSON").Op(":").True())
		}
		vals = append(vals, jen.Id("Value").Op(":").Id("out").Dot(names[b.key]))
		args = append(args, jen.Line().Qual(srvPath, "Media").Values(vals...))
	}
	return jen.Id("s").Dot("engine").Dot("WriteMedia").Call(append(args, jen.Line())...)
}

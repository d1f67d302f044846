package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// paramFields returns the Go field name of every parameter that becomes a
// field, in IR order; "IdempotencyKey" is reserved for the key of a keyed
// operation.
func paramFields(op *ir.Operation) ([]*ir.Parameter, []string) {
	used := namespace{}
	if op.Retry.Safety == ir.Keyed {
		used["IdempotencyKey"] = true
	}
	var params []*ir.Parameter
	var names []string
	for _, p := range op.Params {
		if keyParam(op, p) {
			continue
		}
		params = append(params, p)
		base := p.GoName
		if base == "" {
			base = "Param"
		}
		names = append(names, used.claim(base, "Param"))
	}
	return params, names
}

// emitParams emits an operation's params struct:
//
//	// CreatePaymentParams holds the parameters of CreatePayment.
//	type CreatePaymentParams struct {
//		// IdempotencyKey is sent as the Idempotency-Key header ...
//		IdempotencyKey string
//		// IfMatch is the header parameter "If-Match".
//		IfMatch string
//	}
//
// Required parameters are values; optional ones are pointers (or nil-able
// slices and maps) so that "not sent" differs from a zero value.
func (g *generation) emitParams(op *ir.Operation) jen.Code {
	ids := g.opNames[op]
	var fields []jen.Code
	if op.Retry.Safety == ir.Keyed {
		fields = append(fields, g.comment(fmt.Sprintf("IdempotencyKey is sent as the %s header on every attempt of the call. "+
			"Use one key per business intent; empty means the client makes a fresh one for this call.", op.Retry.KeyName)).
			Id("IdempotencyKey").String())
	}
	params, names := paramFields(op)
	for i, p := range params {
		typ := g.paramType(p)
		what := fmt.Sprintf("%s is the %s parameter %q", names[i], p.In, p.Name)
		if p.Required {
			what += " (required)"
		}
		fields = append(fields, g.comment(what+".", p.Description, deprecated(p.Deprecated)).Id(names[i]).Add(typ))
	}
	return jen.Commentf("%s holds the parameters of %s.", ids.params, op.GoName).Line().
		Type().Id(ids.params).Struct(fields...)
}

// emitParamCalls emits the Builder calls that place each parameter:
//
//	b.Path(wire.Param{Name: "order_id", Style: wire.StyleSimple}, params.OrderID)
//	b.Query(wire.Param{Name: "status", Style: wire.StyleForm, Explode: true}, params.Status)
func (g *generation) emitParamCalls(op *ir.Operation) []jen.Code {
	var out []jen.Code
	if op.Retry.Safety == ir.Keyed {
		out = append(out, jen.Id("b").Dot("Key").Call(jen.Id("params").Dot("IdempotencyKey")))
	}
	params, names := paramFields(op)
	for i, p := range params {
		method := map[ir.ParamLocation]string{ir.InPath: "Path", ir.InQuery: "Query", ir.InHeader: "Header", ir.InCookie: "Cookie"}[p.In]
		if method == "" {
			continue // supportedOps only lets the four locations through
		}
		out = append(out, jen.Id("b").Dot(method).Call(paramLiteral(p), jen.Id("params").Dot(names[i])))
	}
	return out
}

// paramLiteral renders the wire.Param describing p, leaving out the flags
// that are false:
//
//	wire.Param{Name: "ids", Style: wire.StylePipeDelimited, AllowReserved: true}
func paramLiteral(p *ir.Parameter) jen.Code {
	vals := []jen.Code{jen.Id("Name").Op(":").Lit(p.Name), jen.Id("Style").Op(":").Add(styleConst(p.Style))}
	if p.Explode {
		vals = append(vals, jen.Id("Explode").Op(":").True())
	}
	if p.AllowReserved {
		vals = append(vals, jen.Id("AllowReserved").Op(":").True())
	}
	if p.ContentType != "" {
		vals = append(vals, jen.Id("JSON").Op(":").True())
	}
	return jen.Qual(wirePath, "Param").Values(vals...)
}

// styleConst is the runtime constant of a resolved style, named after it
// (ir.StyleDeepObject -> wire.StyleDeepObject); the parser has filled in the
// location's default, so there is no default here:
//
//	wire.StyleForm
func styleConst(s ir.ParamStyle) jen.Code {
	name := string(s)
	if name == "" {
		// Never from the parser; an IR built by hand gets a build error
		// (the zero wire.Style), not a guessed style.
		return jen.Qual(wirePath, "Style").Call(jen.Lit(0))
	}
	return jen.Qual(wirePath, "Style"+strings.ToUpper(name[:1])+name[1:])
}

// paramType is the Go type of a params field. An untyped parameter is any
// (the runtime serialises whatever the caller puts there; nil is not sent);
// optional typed ones are pointers unless nilable.
func (g *generation) paramType(p *ir.Parameter) jen.Code {
	switch {
	case p.Type == nil || p.Type.Kind == ir.KindAny:
		return jen.Any()
	case !p.Required && p.In != ir.InPath:
		return g.optionalType(p.Type)
	}
	return g.goType(p.Type)
}

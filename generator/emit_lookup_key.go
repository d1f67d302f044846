package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// lookupKeyCall names an unsafe call's intent by its client reference: the
// request body's member that carries its x-lookup's key (ir.Lookup.Member)
// becomes the call's key, so the key an error carries (idemrt.KeyOf), the
// key a journal records and the key LookupIntent takes are one value. An
// empty (or absent) reference fails the build with idemrt.ErrEmptyLookupKey
// before anything is sent: a call under a key no lookup can run with would
// stay unknown for good. A keyed operation's key is its idempotency key;
// an operation whose body has no such member keeps a fresh key, which its
// lookup cannot find (docs/extensions.md).
//
//	b.LookupKey("reference", body.Reference)
//
//	if body.Reference != nil {
//		b.LookupKey("reference", *body.Reference)
//	} else {
//		b.LookupKey("reference", "")
//	}
func (g *generation) lookupKeyCall(op *ir.Operation, plan *bodyPlan) jen.Code {
	if op.Lookup == nil || op.Lookup.Member == "" || op.Retry.Safety == ir.Keyed || plan == nil || plan.optional ||
		(plan.kind != bodyJSON && plan.kind != bodyForm) || plan.media.Schema == nil {
		return nil
	}
	d := plan.media.Schema.Deref()
	if d == nil || d.Kind != ir.KindObject {
		return nil
	}
	member := op.Lookup.Member
	prop, field := g.structField(d, member)
	if prop == nil {
		return nil
	}
	ptr, nullable := g.fieldShape(d, prop)
	if nullable {
		return nil
	}
	v := jen.Id("body").Dot(field)
	if ptr {
		v = jen.Op("*").Add(v)
	}
	text, ok := cursorText(prop.Type, v)
	if !ok {
		return nil
	}
	call := func(key jen.Code) jen.Code { return jen.Id("b").Dot("LookupKey").Call(jen.Lit(member), key) }
	if ptr {
		return jen.If(jen.Id("body").Dot(field).Op("!=").Nil()).Block(call(text)).Else().Block(call(jen.Lit("")))
	}
	return call(text)
}

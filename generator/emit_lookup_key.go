package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// lookupKeyCall names an unsafe call's intent by its client reference: the
// request body's member named like its x-lookup's key parameter becomes the
// call's key, so the key an error carries (idemrt.KeyOf), the key a journal
// records and the key LookupIntent takes are one value. A keyed operation's
// key is its idempotency key; an operation whose body has no such member
// keeps a fresh key, which its lookup cannot find (docs/extensions.md).
//
//	b.Key(body.Reference)
//
//	if body.Reference != nil {
//		b.Key(*body.Reference)
//	}
func (g *gen) lookupKeyCall(op *ir.Operation, plan *bodyPlan) jen.Code {
	if op.Lookup == nil || op.Retry.Safety == ir.Keyed || plan == nil || plan.optional ||
		(plan.kind != bodyJSON && plan.kind != bodyForm) || plan.media.Schema == nil {
		return nil
	}
	d := plan.media.Schema.Deref()
	if d == nil || d.Kind != ir.KindObject {
		return nil
	}
	prop, field := g.structField(d, op.Lookup.Key.Name)
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
	call := jen.Id("b").Dot("Key").Call(text)
	if ptr {
		return jen.If(jen.Id("body").Dot(field).Op("!=").Nil()).Block(call)
	}
	return call
}

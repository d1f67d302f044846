package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// unionVariant is one field of a union struct.
type unionVariant struct {
	field  string
	schema *ir.Schema
}

// variants names the fields of a union: a named variant is called after its
// type, an anonymous one after its kind ("String", "Int64", "List").
func (g *gen) variants(s *ir.Schema) []unionVariant {
	used := namespace{"RawJSON": true, "MarshalJSON": true, "UnmarshalJSON": true}
	out := make([]unionVariant, 0, len(s.Variants))
	for _, v := range s.Variants {
		out = append(out, unionVariant{field: used.claim(g.variantName(v), ""), schema: v})
	}
	return out
}

// variantName is the base field name of one variant.
func (g *gen) variantName(v *ir.Schema) string {
	if v == nil {
		return "Any"
	}
	if v.Kind == ir.KindRef && v.Ref != nil {
		return g.typeName(v.Ref)
	}
	switch v.Kind {
	case ir.KindArray:
		return "List"
	case ir.KindMap, ir.KindObject:
		return "Object"
	case ir.KindEnum, ir.KindString:
		if v.Format == ir.FormatDateTime {
			return "Time"
		}
		return "String"
	case ir.KindInteger:
		return "Integer"
	case ir.KindNumber:
		return "Number"
	case ir.KindBool:
		return "Bool"
	}
	return "Any"
}

// emitUnion emits a oneOf/anyOf as a struct with one nilable field per
// variant and the JSON no variant accepted (kept so that it encodes back):
//
//	type Pet struct {
//		Cat *Cat
//		Dog *Dog
//		raw json.RawMessage
//	}
//
// With a discriminator the tag picks the variant; otherwise (or for a tag the
// mapping does not list) one scan of the value's top level ranks the
// variants and the best is decoded once (wire.DecodeUnion, wire.DecodeAnyOf).
func (g *gen) emitUnion(s *ir.Schema) jen.Code {
	name := g.typeName(s)
	vs := g.variants(s)
	fields := make([]jen.Code, 0, len(vs)+1)
	for _, v := range vs {
		fields = append(fields, jen.Id(v.field).Add(g.optionalType(v.schema)))
	}
	fields = append(fields, jen.Id("raw").Qual("encoding/json", "RawMessage"))
	return jen.Add(g.modelDoc(s, g.unionSummary(s, vs)).Type().Id(name).Struct(fields...)).Line().Line().
		Add(g.emitUnionMarshal(s, name, vs)).Line().Line().
		Add(g.emitUnionUnmarshal(s, name, vs)).Line().Line().
		Comment("RawJSON returns the JSON no variant accepted when decoding failed with ErrNoVariant, else the set").Line().
		Comment("variant(s) encoded again (null when none is set).").Line().
		Func().Params(jen.Id("u").Id(name)).Id("RawJSON").Params().Qual("encoding/json", "RawMessage").
		Block(
			jen.List(jen.Id("b"), jen.Err()).Op(":=").Id("u").Dot("MarshalJSON").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil())),
			jen.Return(jen.Id("b")),
		)
}

// unionSummary describes the variants and the decoding rule in one sentence.
func (g *gen) unionSummary(s *ir.Schema, vs []unionVariant) string {
	kind := "oneOf"
	if s.Union == ir.AnyOf {
		kind = "anyOf"
	}
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.field
	}
	rule := "the variant the JSON fits best (its kind; for an object its required and declared members), first in this order among equals, is decoded once"
	if s.Union == ir.AnyOf {
		rule = "every variant that accepts the JSON is set (its kind fits; an object has its required members, and its declared ones are of the right kind); the best is decoded once and the others filled from it"
	}
	if s.Discriminator != nil {
		rule = fmt.Sprintf("the %q member picks the variant; otherwise %s", s.Discriminator.Property, rule)
	}
	return fmt.Sprintf("one of %s (%s): %s", strings.Join(names, ", "), kind, rule)
}

// emitUnionMarshal emits MarshalJSON: the set variant (for anyOf, the set
// object variants merged), else the raw JSON:
//
//	func (u Event) MarshalJSON() ([]byte, error) {
//		return wire.MarshalUnion(u.raw, u.OrderPlaced, u.OrderShipped)
//	}
func (g *gen) emitUnionMarshal(s *ir.Schema, name string, vs []unionVariant) jen.Code {
	args := []jen.Code{jen.Id("u").Dot("raw")}
	for _, v := range vs {
		args = append(args, jen.Id("u").Dot(v.field))
	}
	fn, doc := "MarshalUnion", "MarshalJSON encodes the variant that is set."
	if s.Union == ir.AnyOf {
		fn, doc = "MarshalAnyOf", "MarshalJSON encodes the variant that is set; several set object variants merge into one object."
	}
	return jen.Comment(doc).Line().
		Func().Params(jen.Id("u").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).
		Block(jen.Return(jen.Qual(wirePath, fn).Call(args...)))
}

// emitUnionUnmarshal emits UnmarshalJSON: it decodes by the discriminator
// when there is one, else by ranking the variants (decodeVariants), which
// keep the raw JSON only when no variant accepts it:
//
//	func (u *Event) UnmarshalJSON(data []byte) error {
//		*u = Event{}
//		switch wire.Discriminator(data, "type") {
//		case "OrderPlaced":
//			return wire.DecodeVariant(data, &u.OrderPlaced)
//		}
//		return wire.DecodeUnion(data, &u.raw, &u.OrderPlaced, &u.OrderShipped)
//	}
func (g *gen) emitUnionUnmarshal(s *ir.Schema, name string, vs []unionVariant) jen.Code {
	body := []jen.Code{
		jen.Op("*").Id("u").Op("=").Id(name).Values(),
	}
	if sw := g.discriminatorSwitch(s, vs); sw != nil {
		body = append(body, sw)
	}
	body = append(body, jen.Return(decodeVariants(s, vs)))
	doc := "UnmarshalJSON decodes data into one variant, once; it keeps data only when no variant accepts it."
	if s.Union == ir.AnyOf && s.Discriminator == nil {
		doc = "UnmarshalJSON decodes data into every variant that accepts it, decoding each member once; it keeps data only when no variant accepts it."
	}
	return jen.Comment(doc).Line().
		Func().Params(jen.Id("u").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().
		Block(body...)
}

// decodeVariants is the call that decodes a union without (or beyond) its
// discriminator: oneOf takes the variant the JSON fits best,
//
//	wire.DecodeUnion(data, &u.raw, &u.Circle, &u.Square)
//
// anyOf every variant that accepts the data (the runtime reads the
// required members from the struct tags, so none is listed: a list here
// would be allocated on every call):
//
//	wire.DecodeAnyOf(data, &u.raw, wire.Variant{Target: &u.String},
//		wire.Variant{Target: &u.OrderPlaced})
func decodeVariants(s *ir.Schema, vs []unionVariant) jen.Code {
	args := []jen.Code{jen.Id("data"), jen.Op("&").Id("u").Dot("raw")}
	if s.Union != ir.AnyOf {
		for _, v := range vs {
			args = append(args, jen.Op("&").Id("u").Dot(v.field))
		}
		return jen.Qual(wirePath, "DecodeUnion").Call(args...)
	}
	for _, v := range vs {
		vals := []jen.Code{jen.Id("Target").Op(":").Op("&").Id("u").Dot(v.field)}
		args = append(args, jen.Line().Qual(wirePath, "Variant").Values(vals...))
	}
	return jen.Qual(wirePath, "DecodeAnyOf").Call(append(args, jen.Line())...)
}

// discriminatorSwitch emits the switch on the tag value, or nil when there is
// no discriminator or no mapping names a variant.
func (g *gen) discriminatorSwitch(s *ir.Schema, vs []unionVariant) jen.Code {
	if s.Discriminator == nil {
		return nil
	}
	var cases []jen.Code
	seen := map[string]bool{}
	for _, m := range s.Discriminator.Mapping {
		field := mappedField(m, vs)
		if field == "" || seen[m.Value] {
			continue
		}
		seen[m.Value] = true
		cases = append(cases, jen.Case(jen.Lit(m.Value)).Block(
			jen.Return(jen.Qual(wirePath, "DecodeVariant").Call(jen.Id("data"), jen.Op("&").Id("u").Dot(field)))))
	}
	if len(cases) == 0 {
		return nil
	}
	return jen.Switch(jen.Qual(wirePath, "Discriminator").Call(jen.Id("data"), jen.Lit(s.Discriminator.Property))).Block(cases...)
}

// mappedField returns the pointer field of the variant a discriminator value
// maps to, or "" when the mapping names no variant of the union (or one
// whose field is not a pointer, which DecodeVariant cannot fill).
func mappedField(m ir.DiscriminatorMapping, vs []unionVariant) string {
	for _, v := range vs {
		if v.schema != nil && v.schema.Kind == ir.KindRef && m.Schema != nil &&
			v.schema.Deref() == m.Schema.Deref() && !nilable(v.schema) {
			return v.field
		}
	}
	return ""
}

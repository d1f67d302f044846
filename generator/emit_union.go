package generator

import (
	"fmt"
	"strconv"
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
func (g *generation) variants(s *ir.Schema) []unionVariant {
	used := namespace{"RawJSON": true, "MarshalJSON": true, "UnmarshalJSON": true}
	out := make([]unionVariant, 0, len(s.Variants))
	for _, v := range s.Variants {
		out = append(out, unionVariant{field: used.claim(g.variantName(v), ""), schema: v})
	}
	return out
}

// variantName is the base field name of one variant.
func (g *generation) variantName(v *ir.Schema) string {
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
// variants and the best is decoded, then, if it fails, the next that may
// accept the value (wire.DecodeUnion, wire.DecodeAnyOf).
func (g *generation) emitUnion(s *ir.Schema) jen.Code {
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
		).Line().Line().
		Add(g.emitUnionCtors(s, name, vs))
}

// unionSummary describes the variants and the decoding rule in one sentence.
func (g *generation) unionSummary(s *ir.Schema, vs []unionVariant) string {
	kind := "oneOf"
	if s.Union == ir.AnyOf {
		kind = "anyOf"
	}
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.field
	}
	rule := "the variant the JSON fits best (its kind; for an object its required and declared members), first in this order among equals, is decoded; when it fails, the next that may accept the JSON"
	if s.Union == ir.AnyOf {
		rule = "every variant that accepts the JSON is set (its kind fits; an object has its required members, and its declared ones are of the right kind); the best is decoded (the next that may accept the JSON when it fails) and the others filled from it"
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
func (g *generation) emitUnionMarshal(s *ir.Schema, name string, vs []unionVariant) jen.Code {
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
func (g *generation) emitUnionUnmarshal(s *ir.Schema, name string, vs []unionVariant) jen.Code {
	body := []jen.Code{
		jen.Op("*").Id("u").Op("=").Id(name).Values(),
	}
	if sw := g.discriminatorSwitch(s, vs); sw != nil {
		body = append(body, sw)
	}
	body = append(body, jen.Return(decodeVariants(s, vs)))
	doc := "UnmarshalJSON decodes data into the first variant, best fit first, that accepts it; it keeps data only when no variant fits it."
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
func (g *generation) discriminatorSwitch(s *ir.Schema, vs []unionVariant) jen.Code {
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
			v.schema.Deref() == m.Schema.Deref() && !v.schema.HasNilZero() {
			return v.field
		}
	}
	return ""
}

// reserveUnionCtors names a union's constructors, one per variant:
// New<Union>From<Variant>, where Variant is the field's name without the
// union's name in front (Pet's PetCat -> NewPetFromCat), or, for a variant
// that is an enumeration of one value, that value's name
// (NewMetadataFromEmpty for Stripe's `enum: [""]`).
func (g *generation) reserveUnionCtors(s *ir.Schema) {
	name := g.typeName(s)
	vs := g.variants(s)
	prefix := "New" + name + "From"
	parts := make([]string, len(vs))
	long := false
	for i, v := range vs {
		parts[i] = ctorVariant(name, v)
		long = long || len(prefix)+len(parts[i]) > maxCtorLen
	}
	if long {
		parts = distinctWords(parts)
	}
	names := make([]string, len(vs))
	for i := range vs {
		part := fitWords(parts[i], maxCtorLen-len(prefix))
		if len(prefix)+len(part) > maxCtorLen {
			// Even the variant's last word is too long: its position names it.
			part = "Variant" + strconv.Itoa(i+1)
		}
		names[i] = g.ns.claim(prefix+part, "Variant")
	}
	g.unionCtors[s] = names
}

// distinctWords strips the leading and trailing words every name shares
// (ApplicationCommand…OptionResponse), keeping at least one word of each,
// so that shortened names still tell the variants apart.
func distinctWords(names []string) []string {
	if len(names) < 2 {
		return names
	}
	split := make([][]string, len(names))
	shortest := -1
	for i, n := range names {
		split[i] = camelWords(n)
		if shortest < 0 || len(split[i]) < shortest {
			shortest = len(split[i])
		}
	}
	same := func(at func(ws []string) string) bool {
		for _, ws := range split[1:] {
			if at(ws) != at(split[0]) {
				return false
			}
		}
		return true
	}
	lead, trail := 0, 0
	for lead+trail < shortest-1 && same(func(ws []string) string { return ws[lead] }) {
		lead++
	}
	for lead+trail < shortest-1 && same(func(ws []string) string { return ws[len(ws)-1-trail] }) {
		trail++
	}
	out := make([]string, len(names))
	for i, ws := range split {
		out[i] = strings.Join(ws[lead:len(ws)-trail], "")
	}
	return out
}

// camelWords splits a CamelCase name where a capital follows a small
// letter or a digit.
func camelWords(name string) []string {
	var out []string
	start := 0
	for i := 1; i < len(name); i++ {
		if isUpper(name[i]) && !isUpper(name[i-1]) {
			out = append(out, name[start:i])
			start = i
		}
	}
	return append(out, name[start:])
}

// maxCtorLen bounds a constructor's name where the variant's name allows:
// a long union name and a long variant name would make one of over a
// hundred characters.
const maxCtorLen = 80

// fitWords drops leading words of a CamelCase name until it is at most n
// bytes long, keeping the last word at least: the end of a name is its
// most specific part (…PaymentMethodOptionsParam -> Param).
func fitWords(name string, n int) string {
	words := camelWords(name)
	for len(words) > 1 && len(name) > n {
		name = name[len(words[0]):]
		words = words[1:]
	}
	return name
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// ctorVariant is the part of a constructor's name that names the variant.
func ctorVariant(union string, v unionVariant) string {
	if e := oneValueEnum(v.schema); e != nil {
		return e.Enum[0].GoName
	}
	if rest := strings.TrimPrefix(v.field, union); rest != v.field && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
		return rest
	}
	return v.field
}

// oneValueEnum returns the enumeration a variant names when it has exactly
// one value, else nil.
func oneValueEnum(s *ir.Schema) *ir.Schema {
	if s == nil || s.Kind != ir.KindRef {
		return nil
	}
	if d := s.Deref(); d != nil && d.Kind == ir.KindEnum && len(d.Enum) == 1 {
		return d
	}
	return nil
}

// emitUnionCtors emits one constructor per variant: it takes the variant's
// value, or nothing for a one-value enumeration, and returns the union with
// that variant set:
//
//	// NewPetFromCat wraps v in Pet as its Cat variant.
//	func NewPetFromCat(v Cat) Pet {
//		return Pet{Cat: &v}
//	}
//
//	// NewMetadataFromEmpty is Metadata with its EmptyString variant set to
//	// EmptyStringEmpty ("").
//	func NewMetadataFromEmpty() Metadata {
//		v := EmptyStringEmpty
//		return Metadata{EmptyString: &v}
//	}
func (g *generation) emitUnionCtors(s *ir.Schema, name string, vs []unionVariant) jen.Code {
	out := jen.Null()
	for i, v := range vs {
		ctor := g.unionCtors[s][i]
		ref := jen.Op("&").Id("v")
		if v.schema.HasNilZero() {
			ref = jen.Id("v")
		}
		set := jen.Return(jen.Id(name).Values(jen.Id(v.field).Op(":").Add(ref)))
		if e := oneValueEnum(v.schema); e != nil {
			c := g.enumConsts[e][0]
			out.Comment(fmt.Sprintf("%s is %s with its %s variant set to %s (%q).", ctor, name, v.field, c, e.Enum[0].Value)).Line().
				Func().Id(ctor).Params().Id(name).Block(jen.Id("v").Op(":=").Id(c), set).Line().Line()
			continue
		}
		out.Comment(fmt.Sprintf("%s wraps v in %s as its %s variant.", ctor, name, v.field)).Line().
			Func().Id(ctor).Params(jen.Id("v").Add(g.goType(v.schema))).Id(name).Block(set).Line().Line()
	}
	return out
}

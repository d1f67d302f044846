package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// The names a struct model takes besides its fields: the JSON methods of
// one with additionalProperties, else the accessors and the field of its
// unknown members. They are claimed before the fields, so a member whose Go
// name would clash gets the "_" suffix.
const (
	unknownField  = "unknownMembers"
	unknownGetter = "UnknownMembers"
	unknownSetter = "SetUnknownMembers"
)

// objectNamespace returns the identifiers a named struct model reserves
// before its fields claim theirs (emitObject and structField).
func objectNamespace(s *ir.Schema) namespace {
	if s.AdditionalProperties != nil {
		return namespace{"MarshalJSON": true, "UnmarshalJSON": true}
	}
	return namespace{unknownField: true, unknownGetter: true, unknownSetter: true}
}

// unknownFieldCode is the struct field holding a model's unknown members.
func unknownFieldCode() jen.Code {
	return jen.Line().Id(unknownField).Qual(wirePath, "Unknown")
}

// emitUnknownMethods emits the accessors of the unknown members of a model
// without additionalProperties. The model has no JSON methods: the
// runtime's codec fills and writes the field (wire.Unknown), which costs an
// up-to-date response nothing.
//
//	// UnknownMembers returns the members ... as received ...
//	func (o Order) UnknownMembers() map[string]json.RawMessage {
//		return o.unknownMembers.Members()
//	}
//
//	// SetUnknownMembers replaces ...
//	func (o *Order) SetUnknownMembers(m map[string]json.RawMessage) {
//		o.unknownMembers = wire.NewUnknown(m)
//	}
func (g *generation) emitUnknownMethods(s *ir.Schema) jen.Code {
	name := g.typeName(s)
	raw := jen.Map(jen.String()).Qual("encoding/json", "RawMessage")
	field := jen.Id("o").Dot(unknownField)
	return jen.Comment(unknownGetter + " returns the members of the object that the API document does not").Line().
		Comment("declare (a server may be a release ahead), by name, each value's JSON as received; nil").Line().
		Comment("when there were none. The client keeps them, and sends them again after the declared").Line().
		Comment("members, sorted by name, when the object is part of a request (wire.Unmarshal and").Line().
		Comment("wire.Marshal do the same for JSON from elsewhere; encoding/json alone drops them).").Line().
		Func().Params(jen.Id("o").Id(name)).Id(unknownGetter).Params().Add(raw.Clone()).Block(
		jen.Return(field.Clone().Dot("Members").Call()),
	).Line().Line().
		Comment(unknownSetter + " replaces the members " + unknownGetter + " returns. A member that").Line().
		Comment(name + " declares is never written from them.").Line().
		Func().Params(jen.Id("o").Op("*").Id(name)).Id(unknownSetter).Params(jen.Id("m").Add(raw.Clone())).Block(
		field.Clone().Op("=").Qual(wirePath, "NewUnknown").Call(jen.Id("m")),
	)
}

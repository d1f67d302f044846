package generator

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// modelsFile emits (part of) models_gen.go: one type per named
// declaration, in the IR's order.
func (g *generation) modelsFile(schemas []*ir.Schema) *jen.File {
	return g.fileOf(g.modelPieces(schemas))
}

// modelsPerChunk is how many declarations one goroutine of renderChunks
// emits and renders: enough to make starting it cheap, few enough that a
// document with thousands keeps every core busy.
const modelsPerChunk = 128

// modelPieces emits the declarations, one piece each.
func (g *generation) modelPieces(schemas []*ir.Schema) []piece {
	out := make([]piece, len(schemas))
	for i, s := range schemas {
		out[i] = piece{g.emitModel(s), jen.Line()}
	}
	return out
}

// emitModel emits one declaration according to its kind: an enum
// (emitEnum), a union (emitUnion), an object with properties (emitObject),
// or a named type for anything else (emitNamedType), for example
//
//	type Tags []string
func (g *generation) emitModel(s *ir.Schema) jen.Code {
	switch {
	case s.Kind == ir.KindEnum:
		return g.emitEnum(s)
	case s.Kind == ir.KindUnion:
		return g.emitUnion(s)
	case s.Kind == ir.KindObject && len(s.Properties) > 0:
		return g.emitObject(s)
	}
	return g.emitNamedType(s)
}

// modelDoc is the doc comment of a declaration: its title and description,
// or a line naming the schema it came from.
func (g *generation) modelDoc(s *ir.Schema, what string) *jen.Statement {
	name := g.typeName(s)
	first := fmt.Sprintf("%s is %s.", name, what)
	if s.Name != "" && s.Name != name {
		first = fmt.Sprintf("%s is %s (schema %q).", name, what, s.Name)
	}
	return g.comment(first, s.Title, s.Description, deprecated(s.Deprecated))
}

// deprecated returns the standard deprecation paragraph, or "".
func deprecated(d bool) string {
	if d {
		return "Deprecated: the API document marks this as deprecated."
	}
	return ""
}

// emitNamedType emits a declaration that is not a struct or an enum:
//
//	type Tags []string               // arrays and maps: defined types
//	type Labels map[string]string    // (recursion through them is legal)
//	type Timestamp = time.Time       // scalars and untyped values: aliases
//
// Scalars are aliases so that they keep the methods of their Go type
// (time.Time's JSON form) and mix freely with plain values.
func (g *generation) emitNamedType(s *ir.Schema) jen.Code {
	name := g.typeName(s)
	switch s.Kind {
	case ir.KindArray, ir.KindMap:
		return g.modelDoc(s, article(s.Kind.String())).Type().Id(name).Add(g.goType(s))
	case ir.KindObject:
		// An object without properties holds arbitrary members: a map keeps
		// them all.
		return g.modelDoc(s, "an object with arbitrary members").Type().Id(name).Add(g.goType(s))
	case ir.KindRef:
		if s.Ref == s || s.Ref == nil {
			return g.modelDoc(s, "an untyped JSON value").Type().Id(name).Op("=").Qual("encoding/json", "RawMessage")
		}
		return g.modelDoc(s, "another name for "+g.typeName(s.Ref)).Type().Id(name).Op("=").Add(g.goType(s))
	}
	what := s.Kind.String()
	if s.Format != "" {
		what = s.Format + " " + what
	}
	return g.modelDoc(s, article(what)).Type().Id(name).Op("=").Add(g.goType(s))
}

// article prefixes a noun phrase with "a" or "an".
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// emitObject emits a struct that keeps the members its schema does not
// declare: in AdditionalProperties, with JSON methods, when the schema
// allows additional members (emitExtraMethods), else in an unexported
// field that UnknownMembers returns (emitUnknownMethods):
//
//	type Order struct {
//		ID       string            `json:"id"`
//		Note     *string           `json:"note,omitempty"`
//		Metadata map[string]string `json:"metadata,omitempty"`
//
//		unknownMembers wire.Unknown
//	}
func (g *generation) emitObject(s *ir.Schema) jen.Code {
	name := g.typeName(s)
	// The methods and the unknown members' field share the namespace of
	// the fields, and claim their names first.
	used := objectNamespace(s)
	fields := make([]jen.Code, 0, len(s.Properties)+1)
	for _, p := range s.Properties {
		fields = append(fields, g.field(s, p, nil, used.claim(fieldName(p), "_")))
	}
	if s.AdditionalProperties == nil {
		fields = append(fields, unknownFieldCode())
		code := g.modelDoc(s, "an object").Type().Id(name).Struct(fields...)
		return jen.Add(code).Line().Line().Add(g.emitUnknownMethods(s))
	}
	extra := used.claim("AdditionalProperties", "_")
	fields = append(fields, jen.Line().Comment(extra+" holds the members not declared above.").Line().
		Id(extra).Map(jen.String()).Add(g.goType(s.AdditionalProperties)).Tag(map[string]string{"json": "-"}))
	code := g.modelDoc(s, "an object").Type().Id(name).Struct(fields...)
	return jen.Add(code).Line().Line().Add(g.emitExtraMethods(s, extra))
}

// fieldName is a property's Go field name ("Field" if the parser gave none).
func fieldName(p *ir.Property) string {
	if p.GoName == "" {
		return "Field"
	}
	return p.GoName
}

// emitExtraMethods emits MarshalJSON and UnmarshalJSON for an object with
// additional members. A local type without methods marshals the declared
// fields; the runtime merges or splits the extra members:
//
//	func (o Labels) MarshalJSON() ([]byte, error) {
//		type plain Labels
//		return wire.MarshalExtra(plain(o), o.AdditionalProperties)
//	}
//
//	func (o *Labels) UnmarshalJSON(data []byte) error {
//		type plain Labels
//		if err := wire.UnmarshalDeclared(data, (*plain)(o)); err != nil {
//			return err
//		}
//		return wire.UnmarshalExtra(data, &o.AdditionalProperties, "owner")
//	}
func (g *generation) emitExtraMethods(s *ir.Schema, extra string) jen.Code {
	name := g.typeName(s)
	declared := make([]jen.Code, 0, len(s.Properties)+2)
	declared = append(declared, jen.Id("data"), jen.Op("&").Id("o").Dot(extra))
	for _, p := range s.Properties {
		declared = append(declared, jen.Lit(p.Name))
	}
	return jen.Comment("MarshalJSON writes the declared members, then the additional ones.").Line().
		Func().Params(jen.Id("o").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Type().Id("plain").Id(name),
		jen.Return(jen.Qual(wirePath, "MarshalExtra").Call(jen.Id("plain").Call(jen.Id("o")), jen.Id("o").Dot(extra))),
	).Line().Line().
		Comment("UnmarshalJSON reads the declared members, and keeps the others in "+extra+".").Line().
		Func().Params(jen.Id("o").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Type().Id("plain").Id(name),
		jen.If(jen.Err().Op(":=").Qual(wirePath, "UnmarshalDeclared").Call(jen.Id("data"), jen.Parens(jen.Op("*").Id("plain")).Call(jen.Id("o"))), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Qual(wirePath, "UnmarshalExtra").Call(declared...)),
	)
}

// field emits one struct field. An optional nullable member is an
// idemrt.Nullable (absent, null and a value are three states; omitzero
// leaves out only the absent one). Other optional members and required
// nullable ones are pointers unless their type is already nilable; a
// required member that would make a type contain itself is a pointer too.
//
//	Note  idemrt.Nullable[string] `json:"note,omitzero"`
//	Title *string                 `json:"title,omitempty"`
func (g *generation) field(owner *ir.Schema, p *ir.Property, seen map[*ir.Schema]bool, name string) jen.Code {
	if seen == nil {
		seen = map[*ir.Schema]bool{}
	}
	typ := g.goTypeSeen(p.Type, seen)
	file := g.fileType(owner, p)
	if file != nil {
		typ = file // a file part: its zero value sends no part
	}
	tag := p.Name
	if tag == "-" {
		tag = "-," // a member literally named "-", not "skip this field"
	}
	three := file == nil && threeState(p)
	switch {
	case file != nil:
	case three:
		if g.byPointer[fieldEdge{owner, p}] {
			typ = jen.Op("*").Add(typ)
		}
		typ = jen.Qual(rtPath, "Nullable").Types(typ)
		tag += ",omitzero"
	case !p.Type.HasNilZero() && (!p.Required || p.Type.IsNullable() || g.byPointer[fieldEdge{owner, p}]):
		typ = jen.Op("*").Add(typ)
	}
	if !p.Required && !three {
		tag += ",omitempty"
	} else if p.ReadOnly {
		tag += ",omitzero" // the spec forbids readOnly members in requests
	}
	return g.comment(p.Description, deprecated(p.Deprecated)).
		Id(name).Add(typ).Op(jsonTag(tag))
}

// jsonTag is the struct tag `json:"value"`, written as jen's Tag writes
// a one-key map (a backquoted string, or a quoted one when the value holds
// a backquote), without the map, the sort and fmt.Sprintf jen's Tag costs on
// each of a document's thousands of fields.
func jsonTag(value string) string {
	tag := "json:" + strconv.Quote(value)
	if strconv.CanBackquote(tag) {
		return "`" + tag + "`"
	}
	return strconv.Quote(tag)
}

// threeState reports whether a property is an idemrt.Nullable: optional
// and nullable, so absent and null mean different things (a PATCH that
// leaves a member alone, or clears it).
func threeState(p *ir.Property) bool {
	return !p.Required && p.Type.IsNullable()
}

// emitEnum emits a named type, its constants and IsKnown:
//
//	type OrderStatus string
//	const (
//		OrderStatusPending OrderStatus = "pending"
//	)
//	func (e OrderStatus) IsKnown() bool {
//		return wire.Known(e, OrderStatusPending)
//	}
//
// Unknown values still decode (the type is a plain string or number), so a
// server adding a value does not break old clients; IsKnown tells them apart.
func (g *generation) emitEnum(s *ir.Schema) jen.Code {
	name := g.typeName(s)
	consts := make([]jen.Code, 0, len(s.Enum))
	var known []jen.Code
	seen := map[string]bool{}
	for i, v := range s.Enum {
		lit, key, ok := enumLiteral(s.EnumBase, v.Value)
		if !ok {
			continue
		}
		consts = append(consts, jen.Id(g.enumConsts[s][i]).Id(name).Op("=").Add(lit))
		if !seen[key] {
			seen[key] = true
			known = append(known, jen.Id(g.enumConsts[s][i]))
		}
	}
	isKnown := jen.Return(jen.False())
	if len(known) > 0 {
		isKnown = jen.Return(jen.Qual(wirePath, "Known").Call(append([]jen.Code{jen.Id("e")}, known...)...))
	}
	return jen.Add(g.modelDoc(s, "an enumeration").Type().Id(name).Add(g.enumBaseType(s))).Line().Line().
		Comment("The values of " + name + " the API document lists.").Line().
		Const().Defs(consts...).Line().Line().
		Comment("IsKnown reports whether e is one of the values the API document lists.").Line().
		Func().Params(jen.Id("e").Id(name)).Id("IsKnown").Params().Bool().Block(isKnown)
}

// enumLiteral renders an enum value as a Go literal of its base kind, with a
// key that identifies equal values ("1" and "1.0" are the same number, and a
// switch may not list a constant twice). ok is false for a value that is not
// of the base kind.
func enumLiteral(base ir.Kind, v string) (lit jen.Code, key string, ok bool) {
	switch base {
	case ir.KindInteger:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, "", false
		}
		return jen.Lit(int(n)), strconv.FormatInt(n, 10), true
	case ir.KindNumber:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, "", false // no Go constant spells NaN or infinity
		}
		return jen.Op(strconv.FormatFloat(f, 'g', -1, 64)), strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return jen.Lit(v), v, true
}

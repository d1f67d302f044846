package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// goType returns the Go type of a schema use. Named declarations are referred
// to by name; anonymous schemas map to built-in types (an anonymous object
// with properties becomes an inline struct).
//
//	date-time -> time.Time      date -> idemrt.Date      uuid -> string
//	int32 -> int32, other integers -> int64
//	float -> float32, other numbers -> float64
//	byte, binary -> []byte      untyped -> json.RawMessage
func (g *generation) goType(s *ir.Schema) *jen.Statement {
	return g.goTypeSeen(s, map[*ir.Schema]bool{})
}

// goTypeSeen is goType with a guard against declarations missing from
// API.Schemas that refer to themselves.
func (g *generation) goTypeSeen(s *ir.Schema, seen map[*ir.Schema]bool) *jen.Statement {
	if s == nil {
		return jen.Qual("encoding/json", "RawMessage")
	}
	switch s.Kind {
	case ir.KindRef:
		return g.refType(s.Ref, seen)
	case ir.KindBool:
		return jen.Bool()
	case ir.KindInteger:
		return intType(s.Format)
	case ir.KindNumber:
		return numberType(s.Format)
	case ir.KindString:
		return stringType(s.Format)
	case ir.KindArray:
		if s.Items.IsNullable() && !s.Items.HasNilZero() {
			// A null item stays null (Discord's roles: oneOf [null, snowflake]).
			return jen.Index().Op("*").Add(g.goTypeSeen(s.Items, seen))
		}
		return jen.Index().Add(g.goTypeSeen(s.Items, seen))
	case ir.KindMap:
		return jen.Map(jen.String()).Add(g.goTypeSeen(s.AdditionalProperties, seen))
	case ir.KindEnum:
		return g.enumBaseType(s)
	case ir.KindObject:
		return g.inlineObject(s, seen)
	}
	// KindAny and an anonymous union keep the raw JSON.
	return jen.Qual("encoding/json", "RawMessage")
}

// refType names a declaration, or renders it inline when the parser did not
// list it in API.Schemas.
func (g *generation) refType(d *ir.Schema, seen map[*ir.Schema]bool) *jen.Statement {
	if d == nil {
		return jen.Qual("encoding/json", "RawMessage")
	}
	if n, ok := g.typeNames[d]; ok {
		return jen.Id(n)
	}
	if seen[d] || d.Kind == ir.KindRef && d.Ref == d {
		return jen.Qual("encoding/json", "RawMessage")
	}
	seen[d] = true
	defer delete(seen, d)
	return g.goTypeSeen(d, seen)
}

// intType maps an integer format.
func intType(format string) *jen.Statement {
	if format == ir.FormatInt32 {
		return jen.Int32()
	}
	return jen.Int64()
}

// numberType maps a number format.
func numberType(format string) *jen.Statement {
	if format == ir.FormatFloat {
		return jen.Float32()
	}
	return jen.Float64()
}

// stringType maps a string format. uuid stays a string: servers disagree on
// case and braces, and a string round-trips whatever the server sent.
func stringType(format string) *jen.Statement {
	switch format {
	case ir.FormatDateTime:
		return jen.Qual("time", "Time")
	case ir.FormatDate:
		return jen.Qual(rtPath, "Date")
	case ir.FormatByte, ir.FormatBinary:
		return jen.Index().Byte()
	}
	return jen.String()
}

// enumBaseType is the Go type of an anonymous enum's values.
func (g *generation) enumBaseType(s *ir.Schema) *jen.Statement {
	switch s.EnumBase {
	case ir.KindInteger:
		return jen.Int64()
	case ir.KindNumber:
		return jen.Float64()
	}
	return jen.String()
}

// inlineObject renders an anonymous object: an inline struct when it has
// properties, else a map of its extra members.
func (g *generation) inlineObject(s *ir.Schema, seen map[*ir.Schema]bool) *jen.Statement {
	if len(s.Properties) == 0 {
		if s.AdditionalProperties != nil {
			return jen.Map(jen.String()).Add(g.goTypeSeen(s.AdditionalProperties, seen))
		}
		return jen.Map(jen.String()).Qual("encoding/json", "RawMessage")
	}
	fields := make([]jen.Code, 0, len(s.Properties))
	used := namespace{}
	for _, p := range s.Properties {
		fields = append(fields, g.field(g.uploadOwner(s), p, seen, used.claim(fieldName(p), "_")))
	}
	return jen.Struct(fields...)
}

// optionalType is goType behind a pointer unless the type is nilable.
func (g *generation) optionalType(s *ir.Schema) *jen.Statement {
	if s.HasNilZero() {
		return g.goType(s)
	}
	return jen.Op("*").Add(g.goType(s))
}

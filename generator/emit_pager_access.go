package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// access is the typed Go that reads one x-pagination field path of a page
// or an item: the nil checks on the way, then the expression.
type access struct {
	// checks return early (the caller's fail) when a pointer on the way
	// is nil.
	checks []jen.Code
	expr   func() *jen.Statement
	// schema is the value's schema; ptr: expr is a pointer to it (not yet
	// checked); nullable: expr is an idemrt.Nullable of it.
	schema   *ir.Schema
	ptr      bool
	nullable bool
}

// walk follows path from the value from (of schema s) through struct
// fields, as emitObject and inlineObject declare them. It fails (false) on
// a step that is no struct field: a union, a map, an untyped value, or a
// member behind an idemrt.Nullable.
func (g *generation) walk(from func() *jen.Statement, s *ir.Schema, ptr bool, path ir.Field, fail func() jen.Code) (access, bool) {
	a := access{expr: from, schema: s, ptr: ptr}
	for _, name := range path {
		d := a.schema.Deref()
		if a.nullable || d == nil || d.Kind != ir.KindObject || len(d.Properties) == 0 {
			return a, false
		}
		prop, field := g.structField(d, name)
		if prop == nil {
			return a, false
		}
		if a.ptr {
			a.checks = append(a.checks, nilCheck(a.expr, fail))
		}
		prev := a.expr
		a.expr = func() *jen.Statement { return prev().Dot(field) }
		a.ptr, a.nullable = g.fieldShape(d, prop)
		a.schema = prop.Type
	}
	return a, true
}

// nilCheck returns early when expr is nil:
//
//	if p.Links == nil {
//		return ""
//	}
func nilCheck(expr func() *jen.Statement, fail func() jen.Code) jen.Code {
	return jen.If(expr().Op("==").Nil()).Block(fail())
}

// value is the checks and the expression of the value itself: a pointer
// checked and dereferenced, a Nullable read with Get into the variable
// name (absent and null fail); false for a Nullable of a pointer.
func (a access) value(fail func() jen.Code, name string) ([]jen.Code, *jen.Statement, bool) {
	checks := a.checks
	switch {
	case a.nullable:
		if a.ptr {
			return nil, nil, false
		}
		checks = append(checks, jen.List(jen.Id(name), jen.Id("ok")).Op(":=").Add(a.expr()).Dot("Get").Call(),
			jen.If(jen.Op("!").Id("ok")).Block(fail()))
		return checks, jen.Id(name), true
	case a.ptr:
		checks = append(checks, nilCheck(a.expr, fail))
		return checks, jen.Op("*").Add(a.expr()), true
	}
	return checks, a.expr(), true
}

// structField finds the property name of the struct schema d and the Go
// name of its field, claimed in declaration order as emitObject (named
// declarations, whose methods share the namespace) and inlineObject
// do.
func (g *generation) structField(d *ir.Schema, name string) (*ir.Property, string) {
	used := namespace{}
	if _, named := g.typeNames[d]; named {
		used = objectNamespace(d)
	}
	for _, p := range d.Properties {
		field := used.claim(fieldName(p), "_")
		if p.Name == name {
			return p, field
		}
	}
	return nil, ""
}

// fieldShape says how g.field declares prop in d: behind a pointer, as an
// idemrt.Nullable (ptr too when the Nullable holds a pointer), or as a
// value.
func (g *generation) fieldShape(d *ir.Schema, prop *ir.Property) (ptr, nullable bool) {
	owner := d
	if _, named := g.typeNames[d]; !named {
		owner = g.uploadOwner(d)
	}
	byPtr := g.byPointer[fieldEdge{owner, prop}]
	if threeState(prop) {
		return byPtr, true
	}
	return !prop.Type.HasNilZero() && (!prop.Required || prop.Type.IsNullable() || byPtr), false
}

// elemType is the Go type of an array schema's items, as goType declares
// the array ([]*T for nullable items that have no nil of their own).
func (g *generation) elemType(arr *ir.Schema) (*jen.Statement, bool) {
	items := arr.Deref().Items
	if items.IsNullable() && !items.HasNilZero() {
		return jen.Op("*").Add(g.goType(items)), true
	}
	return g.goType(items), false
}

// cursorText converts a cursor value to its string: strings as they are
// (string(v) for enums), integers in decimal; false for any other type,
// which the caller reads through idemrt.JSONField instead.
func cursorText(s *ir.Schema, v *jen.Statement) (*jen.Statement, bool) {
	d := s.Deref()
	if d == nil {
		return nil, false
	}
	kind := d.Kind
	if kind == ir.KindEnum {
		kind = d.EnumBase
	}
	switch {
	case kind == ir.KindString && d.Kind == ir.KindEnum:
		return jen.String().Call(v), true
	case kind == ir.KindString && d.Format != ir.FormatDateTime && d.Format != ir.FormatDate &&
		d.Format != ir.FormatByte && d.Format != ir.FormatBinary:
		return v, true
	case kind == ir.KindInteger:
		return jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(v), jen.Lit(10)), true
	}
	return nil, false
}

// jsonField reads path of v through its JSON form, the fallback where Go
// fields cannot follow it:
//
//	idemrt.JSONField(last, "id")
func jsonField(v jen.Code, path ir.Field) *jen.Statement {
	args := []jen.Code{v}
	for _, name := range path {
		args = append(args, jen.Lit(name))
	}
	return jen.Qual(rtPath, "JSONField").Call(args...)
}

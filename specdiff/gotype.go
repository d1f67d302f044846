package specdiff

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// The Go types below are those generator/types.go gives a schema, written
// as text: two versions that spell a type the same way here give a Go
// caller the same type. They follow the generator's rules (int32 stays
// int32, date-time is time.Time, an optional scalar is a pointer, an
// optional nullable member is idemrt.Nullable); a rule changed there must
// change here, and TestGoTypesFollowTheGenerator holds them together. Not
// modelled: the pointer the generator adds to break a recursive type, and
// multipart file parts.

// typer writes Go types, naming each declaration with name: its Go name
// (byName), or a key of its shape that ignores the name (byShape), to tell a
// type changed from the same type renamed.
type typer struct {
	name func(d *ir.Schema) string
}

var (
	byName  = typer{func(d *ir.Schema) string { return d.GoName }}
	byShape = typer{shapeKey}
)

// goType is the Go type of a schema use.
func goType(s *ir.Schema) string { return byName.goType(s) }

// fieldType is the Go type of an object's member.
func fieldType(p *ir.Property) string { return byName.fieldType(p) }

// paramType is the Go type of a params struct field.
func paramType(p *ir.Parameter) string { return byName.paramType(p) }

// optionalType is goType behind a pointer unless the type has a nil value.
func optionalType(s *ir.Schema) string { return byName.optionalType(s) }

func (t typer) goType(s *ir.Schema) string {
	return t.goTypeSeen(s, map[*ir.Schema]bool{})
}

func (t typer) goTypeSeen(s *ir.Schema, seen map[*ir.Schema]bool) string {
	if s == nil {
		return "json.RawMessage"
	}
	switch s.Kind {
	case ir.KindRef:
		d := s.Ref
		switch {
		case d == nil || seen[d]:
			return "json.RawMessage"
		case d.GoName != "":
			return t.name(d)
		}
		seen[d] = true
		defer delete(seen, d)
		return t.goTypeSeen(d, seen)
	case ir.KindBool:
		return "bool"
	case ir.KindInteger:
		return intType(s.Format)
	case ir.KindNumber:
		if s.Format == ir.FormatFloat {
			return "float32"
		}
		return "float64"
	case ir.KindString:
		return stringType(s.Format)
	case ir.KindArray:
		if s.Items.IsNullable() && !s.Items.HasNilZero() {
			return "[]*" + t.goTypeSeen(s.Items, seen)
		}
		return "[]" + t.goTypeSeen(s.Items, seen)
	case ir.KindMap:
		return "map[string]" + t.goTypeSeen(s.AdditionalProperties, seen)
	case ir.KindEnum:
		return enumBase(s.EnumBase)
	case ir.KindObject:
		return t.inlineObject(s, seen)
	}
	return "json.RawMessage"
}

func intType(format string) string {
	if format == ir.FormatInt32 {
		return "int32"
	}
	return "int64"
}

func stringType(format string) string {
	switch format {
	case ir.FormatDateTime:
		return "time.Time"
	case ir.FormatDate:
		return "idemrt.Date"
	case ir.FormatByte, ir.FormatBinary:
		return "[]byte"
	}
	return "string"
}

func enumBase(k ir.Kind) string {
	switch k {
	case ir.KindInteger:
		return "int64"
	case ir.KindNumber:
		return "float64"
	}
	return "string"
}

// inlineObject writes an anonymous object: a struct of its members, or a
// map of its extra members.
func (t typer) inlineObject(s *ir.Schema, seen map[*ir.Schema]bool) string {
	if len(s.Properties) == 0 {
		if s.AdditionalProperties != nil {
			return "map[string]" + t.goTypeSeen(s.AdditionalProperties, seen)
		}
		return "map[string]json.RawMessage"
	}
	var b strings.Builder
	b.WriteString("struct{")
	for i, p := range s.Properties {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.GoName + " " + t.fieldTypeSeen(p, seen))
	}
	b.WriteString("}")
	return b.String()
}

func (t typer) fieldType(p *ir.Property) string {
	return t.fieldTypeSeen(p, map[*ir.Schema]bool{})
}

func (t typer) fieldTypeSeen(p *ir.Property, seen map[*ir.Schema]bool) string {
	typ := t.goTypeSeen(p.Type, seen)
	switch {
	case !p.Required && p.Type.IsNullable():
		// Absent and null differ for an optional nullable member.
		return "idemrt.Nullable[" + typ + "]"
	case !p.Type.HasNilZero() && (!p.Required || p.Type.IsNullable()):
		return "*" + typ
	}
	return typ
}

func (t typer) paramType(p *ir.Parameter) string {
	switch {
	case p.Type == nil || p.Type.Kind == ir.KindAny:
		return "any"
	case !p.Required && p.In != ir.InPath:
		return t.optionalType(p.Type)
	}
	return t.goType(p.Type)
}

func (t typer) optionalType(s *ir.Schema) string {
	if s.HasNilZero() {
		return t.goType(s)
	}
	return "*" + t.goType(s)
}

// shapeKey names a declaration by what a Go caller can tell of it without
// its name: an enum by its values, a struct by its members' names, a union
// by its number of variants, anything else by its underlying type.
func shapeKey(d *ir.Schema) string {
	var b strings.Builder
	b.WriteString("<" + declShape(d))
	switch d.Kind {
	case ir.KindEnum:
		for _, v := range d.Enum {
			b.WriteString(" " + v.Value)
		}
	case ir.KindObject:
		for _, p := range d.Properties {
			b.WriteString(" " + p.Name)
		}
	case ir.KindUnion:
		fmt.Fprintf(&b, " %d", len(d.Variants))
	}
	return b.String() + ">"
}

// retype names a change of Go type: "type-renamed" when the two types
// differ only in the names of declarations of the same shape (idemgen names
// an inline type after where it is used, so a document that grows can
// rename one), else changed, the caller's rule.
func retype(sameShape bool, changed string) (rule, how string) {
	if sameShape {
		return "type-renamed", "has the same type under another name"
	}
	return changed, "changed type"
}

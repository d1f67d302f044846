package specdiff

import (
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// The Go types below are those generator/types.go gives a schema, written
// as text: two versions that spell a type the same way here give a Go
// caller the same type. They follow the generator's rules (int32 stays
// int32, date-time is time.Time, an optional scalar is a pointer, an
// optional nullable member is idemrt.Nullable); a rule changed there must
// change here, and TestGoTypesFollowTheGenerator holds them together.

// goType is the Go type of a schema use.
func goType(s *ir.Schema) string {
	return goTypeSeen(s, map[*ir.Schema]bool{})
}

func goTypeSeen(s *ir.Schema, seen map[*ir.Schema]bool) string {
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
			return d.GoName
		}
		seen[d] = true
		defer delete(seen, d)
		return goTypeSeen(d, seen)
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
		if nullable(s.Items) && !nilable(s.Items) {
			return "[]*" + goTypeSeen(s.Items, seen)
		}
		return "[]" + goTypeSeen(s.Items, seen)
	case ir.KindMap:
		return "map[string]" + goTypeSeen(s.AdditionalProperties, seen)
	case ir.KindEnum:
		return enumBase(s.EnumBase)
	case ir.KindObject:
		return inlineObject(s, seen)
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
func inlineObject(s *ir.Schema, seen map[*ir.Schema]bool) string {
	if len(s.Properties) == 0 {
		if s.AdditionalProperties != nil {
			return "map[string]" + goTypeSeen(s.AdditionalProperties, seen)
		}
		return "map[string]json.RawMessage"
	}
	var b strings.Builder
	b.WriteString("struct{")
	for i, p := range s.Properties {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.GoName + " " + fieldTypeSeen(p, seen))
	}
	b.WriteString("}")
	return b.String()
}

// fieldType is the Go type of an object's member.
func fieldType(p *ir.Property) string {
	return fieldTypeSeen(p, map[*ir.Schema]bool{})
}

func fieldTypeSeen(p *ir.Property, seen map[*ir.Schema]bool) string {
	t := goTypeSeen(p.Type, seen)
	switch {
	case !p.Required && nullable(p.Type):
		// Absent and null differ for an optional nullable member.
		return "idemrt.Nullable[" + t + "]"
	case !nilable(p.Type) && (!p.Required || nullable(p.Type)):
		return "*" + t
	}
	return t
}

// paramType is the Go type of a params struct field.
func paramType(p *ir.Parameter) string {
	switch {
	case p.Type == nil || p.Type.Kind == ir.KindAny:
		return "any"
	case !p.Required && p.In != ir.InPath:
		return optionalType(p.Type)
	}
	return goType(p.Type)
}

// optionalType is goType behind a pointer unless the type has a nil value.
func optionalType(s *ir.Schema) string {
	if nilable(s) {
		return goType(s)
	}
	return "*" + goType(s)
}

// nilable reports whether the Go type of s already has a nil value.
func nilable(s *ir.Schema) bool {
	d := s.Deref()
	if d == nil {
		return true
	}
	switch d.Kind {
	case ir.KindArray, ir.KindMap, ir.KindAny:
		return true
	case ir.KindObject:
		return len(d.Properties) == 0
	case ir.KindString:
		return d.Format == ir.FormatByte || d.Format == ir.FormatBinary
	case ir.KindUnion:
		return d.GoName == ""
	}
	return false
}

// nullable reports whether a use or the declaration it names is nullable.
func nullable(s *ir.Schema) bool {
	for ; s != nil; s = s.Ref {
		if s.Nullable {
			return true
		}
		if s.Kind != ir.KindRef {
			break
		}
	}
	return false
}

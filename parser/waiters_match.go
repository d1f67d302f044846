package parser

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// match reads a waiter's condition {field, in} at member; nil and true
// when an optional one is absent.
func (r waiterReader) match(at loc, member string, required bool) (*ir.WaitMatch, bool) {
	mat := at.at(member)
	n := unalias(mat.node)
	switch {
	case n == nil && required:
		r.errorf(at, ruleWaiterMember, "a waiter needs %s: {field: <JSON pointer into the result>, in: [values]}", member)
		return nil, false
	case n == nil:
		return nil, true
	case n.Kind != yaml.MappingNode:
		r.errorf(mat, ruleWaiterType, "%s must be an object {field, in}, not %s", member, describe(n))
		return nil, false
	}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "field" && k != "in" && !strings.HasPrefix(k, "x-") {
			r.errorf(mat.at(k), ruleWaiterMember, "%q is not a member of %s (allowed: field, in)", k, member)
			ok = false
		}
	}
	m := &ir.WaitMatch{}
	leaf, fieldOK := r.field(mat, member, m)
	valuesOK := r.values(mat, member, m)
	if fieldOK && valuesOK {
		r.checkValues(mat.at("in"), m, leaf)
	}
	return m, ok && fieldOK && valuesOK
}

// field sets m.Pointer from the field member and resolves it in the
// result's schema; it returns the schema there (nil when any).
func (r waiterReader) field(mat loc, member string, m *ir.WaitMatch) (*ir.Schema, bool) {
	fat := mat.at("field")
	v := unalias(fat.node)
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || v.Value == "" {
		r.errorf(fat, ruleWaiterField, "%s.field must be a JSON pointer into the result (\"/status\") or a top-level member name (\"status\"), not %s", member, describe(v))
		return nil, false
	}
	m.Pointer = fieldPointer(v.Value)
	leaf, found, why := resolvePointer(r.body, m.Pointer)
	switch {
	case !found:
		r.errorf(fat, ruleWaiterField, "field %s is not in the result of %s: %s", describeField(v.Value, m.Pointer), r.op.ID, why)
		return nil, false
	case leaf != nil && isContainer(leaf):
		r.errorf(fat, ruleWaiterField, "field %s leads to %s; a waiter compares a string, number, boolean or null", describeField(v.Value, m.Pointer), kindText(leaf))
		return nil, false
	}
	return leaf, true
}

// values sets m.In from the in member: a non-empty list of scalars, each
// in its string form.
func (r waiterReader) values(mat loc, member string, m *ir.WaitMatch) bool {
	iat := mat.at("in")
	v := unalias(iat.node)
	if v == nil || v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		r.errorf(iat, ruleWaiterValue, "%s.in must be a non-empty list of values, not %s", member, describe(v))
		return false
	}
	ok := true
	for i, c := range v.Content {
		s, good := scalarForm(unalias(c))
		if !good {
			r.errorf(iat.at(strconv.Itoa(i)), ruleWaiterValue, "%s.in values are strings, numbers, booleans or null, not %s", member, describe(unalias(c)))
			ok = false
			continue
		}
		m.In = append(m.In, s)
	}
	return ok
}

// scalarForm is a YAML scalar's string form as the runtime compares it:
// a string as it is, a number in idemrt.NumberText's canonical text, true,
// false, null.
func scalarForm(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	switch n.ShortTag() {
	case "!!str":
		return n.Value, true
	case "!!null":
		return "null", true
	case "!!bool", "!!int", "!!float":
		var v any
		if n.Decode(&v) != nil {
			return "", false
		}
		switch v := v.(type) {
		case bool:
			return strconv.FormatBool(v), true
		case int:
			return strconv.Itoa(v), true
		case float64:
			return numberText(v)
		}
	}
	return "", false
}

// numberText writes f as idemrt.NumberText does (the parser may not import
// the runtime; TestNumberTextAgrees compares them).
func numberText(f float64) (string, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// checkValues warns about a value the field can never hold: one outside
// its enum, or other than true and false for a boolean.
func (r waiterReader) checkValues(iat loc, m *ir.WaitMatch, leaf *ir.Schema) {
	d := leaf.Deref()
	if d == nil {
		return
	}
	for i, v := range m.In {
		switch {
		case d.Kind == ir.KindEnum && !inEnum(d, v):
			r.sink.warnf(iat.at(strconv.Itoa(i)), r.op.ID, ruleWaiterValue, "%q is not a value of the field's enum (%s); the condition never holds for it", v, enumList(d))
		case d.Kind == ir.KindBool && v != "true" && v != "false":
			r.sink.warnf(iat.at(strconv.Itoa(i)), r.op.ID, ruleWaiterValue, "%q is not true or false, and the field is a boolean", v)
		}
	}
}

func inEnum(s *ir.Schema, v string) bool {
	for _, e := range s.Enum {
		if e.Value == v {
			return true
		}
		if f, err := strconv.ParseFloat(e.Value, 64); err == nil && s.EnumBase != ir.KindString {
			if t, ok := numberText(f); ok && t == v {
				return true
			}
		}
	}
	return false
}

func enumList(s *ir.Schema) string {
	vals := make([]string, len(s.Enum))
	for i, e := range s.Enum {
		vals[i] = e.Value
	}
	return strings.Join(vals, ", ")
}

// overlap refuses a value that is both the success and the failure of the
// same field.
func (r waiterReader) overlap(at loc, until, failOn *ir.WaitMatch) bool {
	if until == nil || failOn == nil || until.Pointer != failOn.Pointer {
		return true
	}
	for _, v := range failOn.In {
		if contains(until.In, v) {
			r.errorf(at.at("failOn", "in"), ruleWaiterValue, "%q is in both until and failOn of field %s", v, until.Pointer)
			return false
		}
	}
	return true
}

// resolvePointer walks a JSON pointer through the result's schema: object
// properties, map values and array items (by index). A schema that says
// nothing (any, a union) accepts the rest of the path, and the schema
// reached is then nil. why says where a missing step failed.
func resolvePointer(s *ir.Schema, ptr string) (leaf *ir.Schema, found bool, why string) {
	toks := jsonpointer.Split(ptr)
	for i, tok := range toks {
		d := s.Deref()
		if d == nil || d.Kind == ir.KindAny || d.Kind == ir.KindUnion {
			return nil, true, ""
		}
		switch d.Kind {
		case ir.KindObject:
			if p := property(d, tok); p != nil {
				s = p.Type
				continue
			}
			if d.AdditionalProperties != nil {
				s = d.AdditionalProperties
				continue
			}
		case ir.KindMap:
			s = d.AdditionalProperties
			continue
		case ir.KindArray:
			if n, err := strconv.Atoi(tok); err == nil && n >= 0 && strconv.Itoa(n) == tok {
				s = d.Items
				continue
			}
		}
		where := "the result"
		if i > 0 {
			where = jsonpointer.Join("", toks[:i]...)
		}
		return nil, false, where + " (" + kindText(d) + ") has no " + strconv.Quote(tok)
	}
	return s, true, ""
}

func isContainer(s *ir.Schema) bool {
	d := s.Deref()
	return d != nil && (d.Kind == ir.KindObject || d.Kind == ir.KindArray || d.Kind == ir.KindMap)
}

// kindText names a schema for messages: `an object`, `an array`, `a string`.
func kindText(s *ir.Schema) string {
	d := s.Deref()
	if d == nil {
		return "any value"
	}
	switch d.Kind {
	case ir.KindObject, ir.KindArray, ir.KindEnum, ir.KindInteger:
		return "an " + d.Kind.String()
	}
	return "a " + d.Kind.String()
}

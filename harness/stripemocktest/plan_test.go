package stripemocktest

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// The three ways every operation is called.
const (
	wayRequired = "required" // required members only, an optional body omitted
	wayAll      = "all"      // every optional member and parameter filled
	wayExpand   = "expand"   // required members plus expand
)

// plannedCall is one call of the driver (driverSource's call).
type plannedCall struct {
	ID     string                     `json:"id"`
	Method string                     `json:"method"`
	Body   json.RawMessage            `json:"body"`
	Params map[string]json.RawMessage `json:"params"`
	op     *ir.Operation
	way    string
}

// plan lists the calls of every operation, three ways each; expandless
// counts the operations without an expand parameter or member (their
// expand way is not called).
func plan(api *ir.API) (calls []plannedCall, expandless int) {
	for _, op := range api.Operations {
		for _, way := range []string{wayRequired, wayAll, wayExpand} {
			c, ok := planCall(op, way)
			if !ok {
				expandless++
				continue
			}
			calls = append(calls, c)
		}
	}
	return calls, expandless
}

// planCall builds one call; ok is false for the expand way of an
// operation that has no expand.
func planCall(op *ir.Operation, way string) (plannedCall, bool) {
	all := way == wayAll
	c := plannedCall{ID: op.GoName + "/" + way, Method: op.GoName, Params: map[string]json.RawMessage{}, op: op, way: way}
	expand := expansion(op)
	hasExpand := false
	for _, p := range op.Params {
		if p.In == ir.InHeader && strings.EqualFold(p.Name, op.Retry.KeyName) {
			continue // the engine sends the key
		}
		if p.Name == "expand" {
			hasExpand = true
			if way == wayExpand {
				c.Params[p.GoName] = mustJSON([]string{expand})
			}
		}
		if p.Required || (all && p.Name != "expand") {
			c.Params[p.GoName] = mustJSON(example(p.Type, all, 0))
		}
	}
	if b := op.Body; b != nil && len(b.Content) > 0 {
		s := b.Content[0].Schema
		if hasMember(s, "expand") {
			hasExpand = true
		}
		if b.Required || all || way == wayExpand {
			body, _ := example(s, all, 0).(map[string]any)
			if body == nil {
				body = map[string]any{}
			}
			delete(body, "expand")
			if way == wayExpand && hasMember(s, "expand") {
				body["expand"] = []string{expand}
			}
			c.Body = mustJSON(body)
		}
	}
	return c, way != wayExpand || hasExpand
}

// expansion names a member of the success model that Stripe can expand:
// one whose schema is a string-or-object union (data.<member> for a list).
func expansion(op *ir.Operation) string {
	s := successSchema(op)
	if name := expandable(s); name != "" {
		return name
	}
	if d := member(s, "data"); d != nil && deref(d).Kind == ir.KindArray {
		if name := expandable(deref(d).Items); name != "" {
			return "data." + name
		}
	}
	return "id"
}

func expandable(s *ir.Schema) string {
	s = deref(s)
	if s == nil {
		return ""
	}
	for _, p := range s.Properties {
		t := deref(p.Type)
		if t != nil && t.Kind == ir.KindUnion && len(t.Variants) > 1 && deref(t.Variants[0]).Kind == ir.KindString {
			return p.Name
		}
	}
	return ""
}

// successSchema is the JSON schema of the first 2xx response, or nil.
func successSchema(op *ir.Operation) *ir.Schema {
	for _, r := range op.Responses {
		if r.IsSuccess() && len(r.Content) > 0 {
			return r.Content[0].Schema
		}
	}
	return nil
}

func deref(s *ir.Schema) *ir.Schema {
	for i := 0; s != nil && s.Kind == ir.KindRef && i < 64; i++ {
		s = s.Ref
	}
	return s
}

func member(s *ir.Schema, name string) *ir.Schema {
	s = deref(s)
	if s == nil {
		return nil
	}
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Type
		}
	}
	return nil
}

func hasMember(s *ir.Schema, name string) bool { return member(s, name) != nil }

// example is a schema-valid value: the first enum value, the first union
// variant, an object's required members (every member when all, three
// levels deep), a one-element list, a one-entry map. Binary members are
// left out: the driver gives File fields content.
func example(s *ir.Schema, all bool, depth int) any {
	s = deref(s)
	if s == nil || depth > 12 {
		return "x"
	}
	switch s.Kind {
	case ir.KindBool:
		return true
	case ir.KindInteger, ir.KindNumber:
		return 1
	case ir.KindString:
		return exampleString(s)
	case ir.KindEnum:
		return enumValue(s)
	case ir.KindArray:
		return []any{example(s.Items, all, depth+1)}
	case ir.KindMap:
		return map[string]any{"key": example(s.AdditionalProperties, all, depth+1)}
	case ir.KindUnion:
		if len(s.Variants) > 0 {
			return example(s.Variants[0], all, depth+1)
		}
	case ir.KindObject:
		return exampleObject(s, all, depth)
	}
	return "x"
}

func exampleString(s *ir.Schema) any {
	switch s.Format {
	case "date-time":
		return "2024-01-01T00:00:00Z"
	case "date":
		return "2024-01-01"
	}
	return "x"
}

func enumValue(s *ir.Schema) any {
	if len(s.Enum) == 0 {
		return "x"
	}
	v := s.Enum[0].Value
	if s.EnumBase == ir.KindInteger || s.EnumBase == ir.KindNumber {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n
		}
	}
	if s.EnumBase == ir.KindBool {
		return v == "true"
	}
	return v
}

func exampleObject(s *ir.Schema, all bool, depth int) any {
	out := map[string]any{}
	for _, p := range s.Properties {
		if p.ReadOnly || deref(p.Type) == nil || deref(p.Type).Format == "binary" {
			continue
		}
		if p.Required || (all && depth < 3) {
			out[p.Name] = example(p.Type, all, depth+1)
		}
	}
	for _, p := range s.Properties {
		// An object without members is not sent by a form at all, so a
		// required one would be missing: give it its first member.
		if len(out) > 0 {
			break
		}
		if !p.ReadOnly && deref(p.Type) != nil && deref(p.Type).Format != "binary" {
			out[p.Name] = example(p.Type, all, depth+1)
		}
	}
	if len(s.Properties) == 0 && s.AdditionalProperties != nil {
		out["key"] = example(s.AdditionalProperties, all, depth+1)
	}
	return out
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

package uniontest

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// The values a schema accepts, made up from the schema alone: minimal (the
// required members only), full (every declared member) and poisoned (a
// member another variant declares, given a value that variant refuses).
// They are candidates: the test keeps those kin-openapi's validator finds
// valid for exactly one variant.

// maxDepth bounds how deep made-up values nest (Status holds a Status).
const maxDepth = 6

// value returns a value s accepts, with every declared member when full
// (and only the required ones below the top), or nil, false when s has no
// value this maker knows (too deep, or no usable type).
func value(s *openapi3.Schema, full bool, depth int) (any, bool) {
	if s == nil || depth > maxDepth {
		return nil, false
	}
	if len(s.Enum) > 0 {
		return s.Enum[0], true
	}
	for _, alts := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf} {
		for _, alt := range alts {
			if alt.Value != nil && !isNull(alt.Value) {
				return value(alt.Value, false, depth+1)
			}
		}
	}
	if len(s.AllOf) > 0 {
		return allOf(s, depth)
	}
	switch typeOf(s) {
	case openapi3.TypeString:
		return stringValue(s), true
	case openapi3.TypeInteger:
		return float64(max(1, int(valueOr(s.Min, 1)))), true
	case openapi3.TypeNumber:
		return valueOr(s.Min, 1.5), true
	case openapi3.TypeBoolean:
		return true, true
	case openapi3.TypeArray:
		return arrayValue(s, depth)
	case openapi3.TypeObject:
		return object(s, full, depth)
	}
	return nil, false
}

// typeOf is the first type s names other than null, "object" for a schema
// without type that declares members.
func typeOf(s *openapi3.Schema) string {
	if s.Type != nil {
		for _, t := range *s.Type {
			if t != openapi3.TypeNull {
				return t
			}
		}
	}
	if len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil {
		return openapi3.TypeObject
	}
	return ""
}

// isNull reports whether s is the {type: "null"} of a nullable union.
func isNull(s *openapi3.Schema) bool {
	return s.Type != nil && len(*s.Type) == 1 && (*s.Type)[0] == openapi3.TypeNull
}

func valueOr(p *float64, def float64) float64 {
	if p != nil {
		return *p
	}
	return def
}

// stringValue is a string of s's format and at least its minimum length.
func stringValue(s *openapi3.Schema) string {
	switch s.Format {
	case "date-time":
		return "2025-08-11T10:00:00Z"
	case "date":
		return "2025-08-11"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	case "uri", "url":
		return "https://example.com/x"
	case "email":
		return "a@example.com"
	case "byte":
		return "aGk="
	}
	v := "s"
	for uint64(len(v)) < s.MinLength {
		v += "s"
	}
	return v
}

// arrayValue is an array of one item (none when the items have no value).
func arrayValue(s *openapi3.Schema, depth int) (any, bool) {
	if s.Items == nil {
		return []any{}, true
	}
	item, ok := value(s.Items.Value, false, depth+1)
	if !ok {
		return []any{}, s.MinItems == 0
	}
	return []any{item}, true
}

// object has s's required members, and every declared one when full.
func object(s *openapi3.Schema, full bool, depth int) (any, bool) {
	obj := map[string]any{}
	for name, p := range s.Properties {
		if !full && !contains(s.Required, name) {
			continue
		}
		v, ok := value(p.Value, false, depth+1)
		if !ok {
			if contains(s.Required, name) {
				return nil, false
			}
			continue
		}
		obj[name] = v
	}
	if len(obj) == 0 && s.AdditionalProperties.Schema != nil {
		if v, ok := value(s.AdditionalProperties.Schema.Value, false, depth+1); ok {
			obj["extra"] = v
		}
	}
	return obj, true
}

// allOf merges the objects made for each part.
func allOf(s *openapi3.Schema, depth int) (any, bool) {
	obj := map[string]any{}
	for _, part := range s.AllOf {
		v, ok := value(part.Value, false, depth+1)
		m, isObj := v.(map[string]any)
		if !ok || !isObj {
			return nil, false
		}
		for k, mv := range m {
			obj[k] = mv
		}
	}
	return obj, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// poisons returns values that s refuses: one of another JSON kind, and,
// for an object or an array, ones of the same kind that are invalid inside
// (a required member, or the item, poisoned in turn), which a
// decoder that only reads the top level cannot tell from a valid one.
func poisons(s *openapi3.Schema, depth int) []any {
	s = single(s)
	if s == nil || depth > 3 {
		return nil
	}
	var out []any
	if typeOf(s) == openapi3.TypeString || len(s.Enum) > 0 {
		out = append(out, 12345.0)
	} else {
		out = append(out, "poison")
	}
	switch typeOf(s) {
	case openapi3.TypeObject:
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil {
				for _, bad := range poisons(p.Value, depth+1) {
					out = append(out, map[string]any{name: bad})
				}
			}
		}
	case openapi3.TypeArray:
		if s.Items != nil {
			for _, bad := range poisons(s.Items.Value, depth+1) {
				out = append(out, []any{bad})
			}
		}
	}
	return out
}

// single returns the one alternative of a nullable union (oneOf [T,
// null]), else s.
func single(s *openapi3.Schema) *openapi3.Schema {
	if s == nil {
		return nil
	}
	var alt *openapi3.Schema
	for _, alts := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf} {
		for _, a := range alts {
			if a.Value == nil || isNull(a.Value) {
				continue
			}
			if alt != nil {
				return s
			}
			alt = a.Value
		}
	}
	if alt == nil {
		return s
	}
	return alt
}

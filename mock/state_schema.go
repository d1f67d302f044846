package mock

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// maxMemberDepth bounds the walk through allOf, oneOf and anyOf when a
// member is looked up (a document may nest them, or loop).
const maxMemberDepth = 8

// memberOf is the schema of the object member name: a property of s, of
// any of its allOf members, or of every variant of its oneOf/anyOf; nil
// when s does not declare it.
func memberOf(ref *openapi3.SchemaRef, name string, depth int) *openapi3.SchemaRef {
	if ref == nil || ref.Value == nil || depth > maxMemberDepth {
		return nil
	}
	s := ref.Value
	if p := s.Properties[name]; p != nil {
		return p
	}
	for _, m := range s.AllOf {
		if p := memberOf(m, name, depth+1); p != nil {
			return p
		}
	}
	for _, variants := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		var first *openapi3.SchemaRef
		for _, v := range variants {
			p := memberOf(v, name, depth+1)
			if p == nil {
				first = nil
				break
			}
			if first == nil {
				first = p
			}
		}
		if first != nil {
			return first
		}
	}
	return nil
}

// memberNames are the properties s declares, itself and through allOf,
// in order and unique.
func memberNames(ref *openapi3.SchemaRef, depth int) []string {
	if ref == nil || ref.Value == nil || depth > maxMemberDepth {
		return nil
	}
	out := sortedKeys(ref.Value.Properties)
	for _, m := range ref.Value.AllOf {
		for _, n := range memberNames(m, depth+1) {
			if ref.Value.Properties[n] == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// isArray reports whether ref is an array schema.
func isArray(ref *openapi3.SchemaRef) bool {
	return ref != nil && ref.Value != nil && ref.Value.Items != nil &&
		(ref.Value.Type.Is("array") || ref.Value.Type.IsEmpty())
}

// itemsOf finds the items array of a list answer without a paging
// contract: the body itself, else its data, items or results array, else
// its only array member.
func itemsOf(body *openapi3.SchemaRef) ([]string, bool) {
	if isArray(body) {
		return nil, true
	}
	var arrays []string
	for _, n := range memberNames(body, 0) {
		if isArray(memberOf(body, n, 0)) {
			arrays = append(arrays, n)
		}
	}
	for _, n := range []string{"data", "items", "results"} {
		for _, a := range arrays {
			if a == n {
				return []string{n}, true
			}
		}
	}
	if len(arrays) == 1 {
		return arrays, true
	}
	return nil, false
}

// schemaAt walks a path of members from body; nil when one is missing.
func schemaAt(body *openapi3.SchemaRef, path []string) *openapi3.SchemaRef {
	for _, name := range path {
		if body = memberOf(body, name, 0); body == nil {
			return nil
		}
	}
	return body
}

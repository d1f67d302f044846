package mock

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// unionParams lists the exploded form query parameters whose schema, or
// whose list's items, is a union (oneOf, anyOf). kin-openapi's query
// decoder cannot pick a variant for name=v or name=a&name=b (Discord's
// sku_ids: oneOf a string and a list), and decodes the items of a list
// against each variant by type alone, so a oneOf of constants matches
// every variant (Discord's author_type).
func unionParams(rt *route) map[string]*openapi3.Parameter {
	var out map[string]*openapi3.Parameter
	for _, p := range params(rt.item, rt.op) {
		if p.In != openapi3.ParameterInQuery || p.Schema == nil || p.Schema.Value == nil ||
			(p.Style != "" && p.Style != openapi3.SerializationForm) || (p.Explode != nil && !*p.Explode) {
			continue
		}
		if isUnion(p.Schema.Value) || p.Schema.Value.Items != nil && p.Schema.Value.Items.Value != nil && isUnion(p.Schema.Value.Items.Value) {
			if out == nil {
				out = map[string]*openapi3.Parameter{}
			}
			out[p.Name] = p
		}
	}
	return out
}

func isUnion(s *openapi3.Schema) bool { return len(s.OneOf)+len(s.AnyOf) > 0 }

// validateUnionParams validates each union parameter from its values: one
// value is a string, several a list, and coerceForm picks the variant.
func validateUnionParams(r *http.Request, rt *route, unions map[string]*openapi3.Parameter) []FieldError {
	var out []FieldError
	q := r.URL.Query()
	for _, name := range sortedKeys(unions) {
		p := unions[name]
		vs := q[name]
		switch {
		case len(vs) == 0 && p.Required:
			out = append(out, FieldError{In: "query", Name: name, Reason: "value is required but missing"})
		case len(vs) == 1:
			out = append(out, validateParamValue(rt, p, vs[0])...)
		case len(vs) > 1:
			list := make([]any, len(vs))
			for i, v := range vs {
				list[i] = v
			}
			out = append(out, validateParamValue(rt, p, list)...)
		}
	}
	return out
}

package mock

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxFormDepth bounds the nesting of a form key (a[b][c]...).
const maxFormDepth = 32

// decodeForm reads an application/x-www-form-urlencoded body the way
// form-decoding servers (Rails, Stripe, PHP) do: a[b]=v nests objects,
// a[0][c]=v and a[]=v build lists, a repeated key makes a list. Leaves stay
// strings until coerceForm gives them the schema's types. kin-openapi's own
// form decoder reads flat forms only, so the mock validates forms with this.
func decodeForm(body []byte) (map[string]any, bool) {
	q, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, false
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	root := map[string]any{}
	for _, k := range keys {
		path, ok := formPath(k)
		if !ok {
			return nil, false
		}
		for _, v := range q[k] {
			insertForm(root, path, v)
		}
	}
	return root, true
}

// formPath splits "a[b][0][]" into a, b, 0, "".
func formPath(key string) ([]string, bool) {
	name, rest, nested := strings.Cut(key, "[")
	path := []string{name}
	if !nested {
		return path, true
	}
	rest = "[" + rest
	for rest != "" {
		if rest[0] != '[' {
			return nil, false
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 || len(path) > maxFormDepth {
			return nil, false
		}
		path = append(path, rest[1:end])
		rest = rest[end+1:]
	}
	return path, true
}

// insertForm puts v at path in m; a second value at one place makes a
// list. v is a string from a form, or any decoded value (a JSON part).
func insertForm(m map[string]any, path []string, v any) {
	k := path[0]
	if len(path) == 1 || (len(path) == 2 && path[1] == "") {
		switch old := m[k].(type) {
		case nil:
			if len(path) == 2 {
				m[k] = []any{v}
			} else {
				m[k] = v
			}
		case []any:
			m[k] = append(old, v)
		default:
			m[k] = []any{old, v}
		}
		return
	}
	child, ok := m[k].(map[string]any)
	if !ok {
		child = map[string]any{}
		m[k] = child
	}
	insertForm(child, path[1:], v)
}

// coerceForm gives the strings of a decoded form the types the schema asks
// for, and turns objects keyed 0, 1, ... into lists where it asks for one.
func coerceForm(v any, ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxFormDepth {
		return v
	}
	s := ref.Value
	if x, isText := v.(string); isText && !s.Type.IsEmpty() && len(s.OneOf)+len(s.AnyOf) > 0 {
		// A union under a type of its own (Discord's integer oneOf of
		// constants): the type decides, the variants only narrow.
		v = coerceString(x, s, depth)
	}
	if c, ok := coerceUnion(v, s, depth); ok {
		return c
	}
	for _, m := range s.AllOf {
		v = coerceForm(v, m, depth+1)
	}
	switch x := v.(type) {
	case string:
		return coerceString(x, s, depth)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = coerceForm(e, s.Items, depth+1)
		}
		return out
	case map[string]any:
		if s.Type.Is("array") {
			if list, ok := indexedList(x); ok {
				return coerceForm(list, ref, depth+1)
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			p := s.Properties[k]
			if p == nil {
				p = s.AdditionalProperties.Schema
			}
			out[k] = coerceForm(e, p, depth+1)
		}
		return out
	}
	return v
}

// coerceUnion is v coerced for the first variant of a oneOf or anyOf whose
// coerced value validates.
func coerceUnion(v any, s *openapi3.Schema, depth int) (any, bool) {
	for _, variant := range append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...) {
		c := coerceForm(v, variant, depth+1)
		if variant.Value != nil && variant.Value.VisitJSON(c, openapi3.VisitAsRequest()) == nil {
			return c, true
		}
	}
	return nil, false
}

// coerceString reads a form's string as the scalar the schema types it as,
// or as a list of one; a string that does not parse stays a string.
func coerceString(x string, s *openapi3.Schema, depth int) any {
	if s.Type.IsEmpty() {
		return x
	}
	switch {
	case s.Type.Permits("integer"):
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n
		}
	case s.Type.Permits("number"):
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f
		}
	case s.Type.Permits("boolean"):
		if b, err := strconv.ParseBool(x); err == nil {
			return b
		}
	case s.Type.Is("array"):
		return []any{coerceForm(x, s.Items, depth+1)}
	}
	return x
}

// indexedList turns {"0": a, "1": b} into [a, b]; the indexes must be
// 0..n-1.
func indexedList(m map[string]any) ([]any, bool) {
	out := make([]any, len(m))
	for k, v := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= len(m) || out[i] != nil {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

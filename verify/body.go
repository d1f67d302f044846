package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// paramValue is a value for a parameter the inputs do not give: "*" for
// If-Match (any version: the checks that need a stale one send it
// themselves), else one built from its schema.
func paramValue(p *ir.Parameter) string {
	if strings.EqualFold(p.Name, "If-Match") {
		return "*"
	}
	return scalarValue(p.Type)
}

// scalarValue is a fixed value of a schema's type: the first enum member,
// 1, true, a UUID, a date, or "verify".
func scalarValue(s *ir.Schema) string {
	d := s.Deref()
	if d == nil {
		return "verify"
	}
	switch d.Kind {
	case ir.KindEnum:
		if len(d.Enum) > 0 {
			return d.Enum[0].Value
		}
	case ir.KindInteger, ir.KindNumber:
		return "1"
	case ir.KindBool:
		return "true"
	case ir.KindArray:
		return scalarValue(d.Items)
	case ir.KindString:
		switch d.Format {
		case ir.FormatUUID:
			return "00000000-0000-4000-8000-000000000001"
		case ir.FormatDateTime:
			return "2026-01-01T00:00:00Z"
		case ir.FormatDate:
			return "2026-01-01"
		}
	}
	return "verify"
}

// encodeBody writes a JSON value as mediaType: JSON, a form (nested members
// as a[b]=c, list items as a[0]=c, as Stripe reads them), else a string
// as it is and anything else as JSON.
func encodeBody(mediaType string, v any) []byte {
	switch {
	case mediaType == "application/x-www-form-urlencoded":
		q := url.Values{}
		flattenForm(q, "", v)
		return []byte(q.Encode())
	case strings.Contains(mediaType, "json"):
	default:
		if s, ok := v.(string); ok {
			return []byte(s)
		}
	}
	b, _ := json.Marshal(v)
	return b
}

func flattenForm(q url.Values, prefix string, v any) {
	name := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "[" + k + "]"
	}
	switch x := v.(type) {
	case map[string]any:
		for k, m := range x {
			flattenForm(q, name(k), m)
		}
	case []any:
		for i, m := range x {
			flattenForm(q, name(strconv.Itoa(i)), m)
		}
	case nil:
	case string:
		q.Add(prefix, x)
	default:
		b, _ := json.Marshal(x)
		q.Add(prefix, string(b))
	}
}

// otherBody returns a copy of body with one member changed: the first
// number (plus one), else the first string (its last character changed,
// keeping its length and class, so a UUID stays one), else the first
// boolean (flipped), in member-name order and depth first. nil when body
// has nothing to change.
func otherBody(body any) any {
	b, _ := json.Marshal(body)
	var c any
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	for _, kind := range []reflect.Kind{reflect.Float64, reflect.String, reflect.Bool} {
		if changed, ok := change(c, kind); ok {
			return changed
		}
	}
	return nil
}

func change(v any, kind reflect.Kind) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if m, ok := change(x[k], kind); ok {
				x[k] = m
				return x, true
			}
		}
	case []any:
		for i := range x {
			if m, ok := change(x[i], kind); ok {
				x[i] = m
				return x, true
			}
		}
	case float64:
		return x + 1, kind == reflect.Float64
	case string:
		if kind == reflect.String && x != "" {
			return x[:len(x)-1] + string(nextChar(x[len(x)-1])), true
		}
	case bool:
		return !x, kind == reflect.Bool
	}
	return v, false
}

// nextChar is another character of c's class: digits and letters rotate.
func nextChar(c byte) byte {
	switch {
	case c >= '0' && c <= '8', c >= 'a' && c <= 'y', c >= 'A' && c <= 'Y':
		return c + 1
	case c == '9':
		return '0'
	case c == 'z':
		return 'a'
	case c == 'Z':
		return 'A'
	}
	return 'x'
}

// firstDifference names the first member where two bodies differ, as a
// JSON pointer with both values ("/id: \"a\" then \"b\""); "" when they are
// equal JSON (or equal bytes). Bodies that are not JSON compare as bytes.
func firstDifference(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return fmt.Sprintf("the bodies differ (%d then %d bytes)", len(a), len(b))
	}
	return diffValue("", x, y)
}

func diffValue(at string, x, y any) string {
	xm, xok := x.(map[string]any)
	ym, yok := y.(map[string]any)
	if xok && yok {
		keys := map[string]bool{}
		for k := range xm {
			keys[k] = true
		}
		for k := range ym {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := diffValue(at+"/"+jsonpointer.Escape(k), xm[k], ym[k]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(x, y) {
		return ""
	}
	if at == "" {
		at = "/"
	}
	return fmt.Sprintf("%s: %s then %s", at, short(x), short(y))
}

// short is a JSON value cut to 40 bytes for a message.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}

package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

// ParamCursor renders a params field as a Pager's Start cursor: v is the
// field's address (a *V, or a **V for an optional parameter); nil, or a nil
// pointer, is "". Generated code calls it with string and number fields.
func ParamCursor(v any) string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return ""
		}
		rv = rv.Elem()
	}
	return fmt.Sprint(rv.Interface())
}

// SetCursor places cursor in a params field: dst is the field's address
// (a *V, or a **V for an optional parameter, set to nil for ""; an untyped
// parameter, *any, is set to the string, or nil for ""). V is a
// string, integer or number type (a named one too, an enum say); a cursor
// that does not parse as V is an error, and so is any other V.
func SetCursor(dst any, cursor string) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("pagination: SetCursor needs a pointer, not %T", dst)
	}
	field := rv.Elem()
	if field.Kind() == reflect.Interface && cursor == "" {
		field.SetZero() // an untyped parameter: not sent
		return nil
	}
	if field.Kind() == reflect.Pointer {
		if cursor == "" {
			field.SetZero()
			return nil
		}
		field.Set(reflect.New(field.Type().Elem()))
		field = field.Elem()
	}
	return setScalar(field, cursor)
}

// setScalar parses cursor into v, by v's kind.
func setScalar(v reflect.Value, cursor string) error {
	var err error
	switch v.Kind() {
	case reflect.String:
		v.SetString(cursor)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var n int64
		if n, err = strconv.ParseInt(cursor, 10, v.Type().Bits()); err == nil {
			v.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var n uint64
		if n, err = strconv.ParseUint(cursor, 10, v.Type().Bits()); err == nil {
			v.SetUint(n)
		}
	case reflect.Float32, reflect.Float64:
		var f float64
		if f, err = strconv.ParseFloat(cursor, v.Type().Bits()); err == nil {
			v.SetFloat(f)
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf(cursor))
	default:
		return fmt.Errorf("pagination: a cursor cannot be a %s parameter", v.Type())
	}
	if err != nil {
		return fmt.Errorf("pagination: cursor %q for a %s parameter: %w", cursor, v.Type(), err)
	}
	return nil
}

// JSONField returns the member at path of v's JSON form, as a cursor: a
// string as is, a number or a boolean as written, "" for anything else or when a member
// is missing. Generated code uses it where a path cannot be followed
// through Go fields (an item type that is a union, say).
func JSONField(v any, path ...string) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	for _, name := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return ""
		}
		if raw = obj[name]; raw == nil {
			return ""
		}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	raw = bytes.TrimSpace(raw)
	if s := string(raw); s == "true" || s == "false" || len(s) > 0 && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return s
	}
	return ""
}

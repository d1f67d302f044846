package idemsrv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// isUnion reports whether t is a union the way generated code writes one:
// a struct with its own UnmarshalJSON whose fields (the variants) have no
// JSON member names. The client sends such a value as whatever its one
// set variant marshals to: a scalar (workflow_id=42), an object
// (created[gt]=1) or a list.
func isUnion(t reflect.Type) bool {
	if t.Kind() != reflect.Struct || !reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		return false
	}
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("json") != "" {
			return false
		}
	}
	return t.NumField() > 0
}

// assignUnion stores v into the union rv through the union's own
// UnmarshalJSON, so that its choice of variant (and its raw fallback)
// applies as it does to a JSON body.
func assignUnion(rv reflect.Value, v value) error {
	u := rv.Addr().Interface().(json.Unmarshaler)
	if !v.isObj && !v.isList {
		return unmarshalScalar(u, v.scalar)
	}
	var buf bytes.Buffer
	if err := writeUnion(&buf, v, rv.Type(), 0); err != nil {
		return err
	}
	return u.UnmarshalJSON(buf.Bytes())
}

// unmarshalScalar gives a union the parameter's text as JSON when it is
// JSON (42, true), else as a JSON string: the wire does not say which, so
// a string variant holding "42" reads back as the number variant.
func unmarshalScalar(u json.Unmarshaler, s string) error {
	if json.Valid([]byte(s)) && u.UnmarshalJSON([]byte(s)) == nil {
		return nil
	}
	b, _ := json.Marshal(s)
	return u.UnmarshalJSON(b)
}

// writeUnionScalar writes a form scalar for the union t the way
// unmarshalScalar reads a parameter: bare when it is JSON (cancel_at=1 is
// the number variant), else quoted; an empty value is null first, as for
// any type of its own JSON decoding.
func writeUnionScalar(buf *bytes.Buffer, s string, t reflect.Type) error {
	quoted, _ := json.Marshal(s)
	cands := [][]byte{quoted}
	switch {
	case s == "":
		cands = [][]byte{[]byte("null"), quoted}
	case json.Valid([]byte(s)):
		cands = [][]byte{[]byte(s), quoted}
	}
	for _, cand := range cands {
		if json.Unmarshal(cand, reflect.New(t).Interface()) == nil {
			buf.Write(cand)
			return nil
		}
	}
	return fmt.Errorf("%q is not a valid %s", s, t)
}

// writeUnion writes an object or a list for the union t as the JSON of the
// first variant of that kind whose JSON the union accepts: the form and
// deepObject text has no types, the variant gives them.
func writeUnion(buf *bytes.Buffer, v value, t reflect.Type, depth int) error {
	for i := range t.NumField() {
		f := t.Field(i)
		vt := f.Type
		for vt.Kind() == reflect.Pointer {
			vt = vt.Elem()
		}
		if !f.IsExported() || !holds(vt, v) {
			continue
		}
		var tmp bytes.Buffer
		if writeJSON(&tmp, v, vt, depth+1) != nil {
			continue
		}
		if json.Unmarshal(tmp.Bytes(), reflect.New(t).Interface()) == nil {
			buf.Write(tmp.Bytes())
			return nil
		}
	}
	return fmt.Errorf("no variant of %s holds this value", t)
}

// holds reports whether a variant of type t can take v's shape.
func holds(t reflect.Type, v value) bool {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return v.isObj
	case reflect.Slice, reflect.Array:
		return (v.isList || v.isObj) && t.Elem().Kind() != reflect.Uint8
	case reflect.Interface:
		return true
	}
	return false
}

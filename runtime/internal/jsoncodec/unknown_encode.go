package jsoncodec

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"slices"
)

// writeUnknown returns b, the encoding of v, with the unknown members of
// the models in v appended to their objects (after the declared members,
// sorted by name). When no model in v holds any, b is returned as it is.
func writeUnknown(b []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !keepsAny(rv.Type()) || !hasUnknown(rv) {
		return b, nil
	}
	return splice(make([]byte, 0, len(b)+len(b)/4), trimSpace(b), rv)
}

// hasUnknown reports whether a model in v holds unknown members.
func hasUnknown(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return !v.IsNil() && hasUnknown(v.Elem())
	case reflect.Struct:
		return structHasUnknown(v, encodeWalkOf(v.Type()))
	case reflect.Slice, reflect.Array:
		t := v.Type()
		if encodeWalkOf(t).skip {
			return false
		}
		// A list of models looks its element's walk up once, not per item.
		if t.Elem().Kind() == reflect.Struct {
			w := encodeWalkOf(t.Elem())
			for i := range v.Len() {
				if structHasUnknown(v.Index(i), w) {
					return true
				}
			}
			return false
		}
		for i := range v.Len() {
			if hasUnknown(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		if encodeWalkOf(v.Type()).skip {
			return false
		}
		for it := v.MapRange(); it.Next(); {
			if hasUnknown(it.Value()) {
				return true
			}
		}
	}
	return false
}

// structHasUnknown is hasUnknown of v, a struct whose walk is w.
func structHasUnknown(v reflect.Value, w *encodeWalk) bool {
	if w.skip {
		return false
	}
	if w.unknown >= 0 && !v.Field(w.unknown).Field(0).IsNil() {
		return true
	}
	for _, i := range w.fields {
		if hasUnknown(v.Field(i)) {
			return true
		}
	}
	return false
}

// splice appends to out the JSON value data, the encoding of v, with the
// unknown members of the models in v added.
func splice(out, data []byte, v reflect.Value) ([]byte, error) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return append(out, data...), nil
		}
		v = v.Elem()
	}
	if selfCoded(v.Type()) || !keepsAny(v.Type()) {
		return append(out, data...), nil
	}
	switch k := KindOf(data); {
	case v.Kind() == reflect.Struct && k == KindObject:
		return spliceStruct(out, data, v)
	case v.Kind() == reflect.Map && k == KindObject && v.Type().Key().Kind() == reflect.String:
		return spliceMap(out, data, v)
	case (v.Kind() == reflect.Slice || v.Kind() == reflect.Array) && k == KindArray:
		return spliceElems(out, data, v)
	}
	return append(out, data...), nil
}

// spliceStruct is splice for a struct: its members that may hold models
// are spliced, the rest copied, and a model's own unknown members follow.
func spliceStruct(out, data []byte, v reflect.Value) ([]byte, error) {
	t := v.Type()
	l := layoutOf(t)
	var buf [16]Member
	ms := scanMembers(data, buf[:0])
	pos := 0
	var err error
	for _, m := range ms {
		i := l.field(m.Name)
		if i < 0 || !keepsAny(t.Field(i).Type) {
			continue
		}
		out = append(out, data[pos:m.Start]...)
		if out, err = splice(out, data[m.Start:m.End], v.Field(i)); err != nil {
			return nil, err
		}
		pos = m.End
	}
	end := bytes.LastIndexByte(data, '}')
	out = append(out, data[pos:end]...)
	if keepsUnknown(t) {
		if out, err = appendUnknown(out, len(ms) == 0, keeperMembers(v), l); err != nil {
			return nil, err
		}
	}
	return append(out, '}'), nil
}

// spliceMap is splice for a map with string keys.
func spliceMap(out, data []byte, v reflect.Value) ([]byte, error) {
	pos := 0
	var err error
	for _, m := range ScanMembers(data) {
		val := v.MapIndex(reflect.ValueOf(m.Name).Convert(v.Type().Key()))
		if !val.IsValid() {
			continue
		}
		out = append(out, data[pos:m.Start]...)
		if out, err = splice(out, data[m.Start:m.End], val); err != nil {
			return nil, err
		}
		pos = m.End
	}
	return append(out, data[pos:]...), nil
}

// spliceElems is splice for a slice or an array.
func spliceElems(out, data []byte, v reflect.Value) ([]byte, error) {
	pos, n := 0, 0
	var err error
	forElems(data, func(elem []byte) {
		if err != nil || n >= v.Len() {
			return
		}
		off := offsetIn(data, elem)
		out = append(out, data[pos:off]...)
		out, err = splice(out, elem, v.Index(n))
		pos = off + len(elem)
		n++
	})
	if err != nil {
		return nil, err
	}
	return append(out, data[pos:]...), nil
}

// offsetIn returns where the subslice sub of data starts.
func offsetIn(data, sub []byte) int {
	return cap(data) - cap(sub)
}

// keeperMembers returns the unknown members of the model v.
func keeperMembers(v reflect.Value) map[string]stdjson.RawMessage {
	if !v.CanAddr() {
		c := reflect.New(v.Type())
		c.Elem().Set(v)
		v = c.Elem()
	}
	return v.Addr().Interface().(Keeper).UnknownMembers()
}

// appendUnknown appends the members of m that l does not declare to an
// object being written (empty: it has no member yet), sorted by name. An
// unknown member never overrides a declared one, also one left out of the
// encoding (omitempty), and by a case-insensitive match, as decoding would.
func appendUnknown(out []byte, empty bool, m map[string]stdjson.RawMessage, l *layout) ([]byte, error) {
	names := make([]string, 0, len(m))
	for k := range m {
		if l.field(k) < 0 {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		val := trimSpace(m[k])
		if !stdjson.Valid(val) {
			return nil, ErrInvalidUnknown
		}
		if !empty {
			out = append(out, ',')
		}
		empty = false
		key, _ := stdjson.Marshal(k)
		out = append(out, key...)
		out = append(out, ':')
		out = append(out, val...)
	}
	return out, nil
}

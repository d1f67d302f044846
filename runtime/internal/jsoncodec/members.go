package jsoncodec

import (
	"encoding"
	stdjson "encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
)

// Decoding member by member. Each value with an UnmarshalJSON method is
// handed its bytes by the library decoding around it, which has to read
// them first to find their end; a chain of such values (a recursive union,
// a Nullable chain) nested d levels deep is then read d times. For the
// structs and slices on such chains UnmarshalNested therefore reads the
// object's members (or the array's elements) with Scan and decodes each
// from its own bytes: a member with an UnmarshalJSON method is called
// directly, and the library only decodes values with no such method inside.

// layout is what member-by-member decoding knows of a struct type.
type layout struct {
	// names are the members' JSON names, fields the matching field indexes.
	names  []string
	fields []int
	// nests: some member's type has an UnmarshalJSON method or reaches one
	// through structs, pointers and slices; ok: the struct can be decoded
	// member by member (no method of its own, no embedded field, no
	// ",string" option).
	nests, ok bool
	// unknown is the index of the field of type Unknown of a model that
	// keeps its unknown members, else -1.
	unknown int
}

var layouts sync.Map

var (
	unmarshalerType     = reflect.TypeFor[stdjson.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether *t has UnmarshalJSON or UnmarshalText.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(unmarshalerType) || p.Implements(textUnmarshalerType)
}

// layoutOf returns the cached layout of the struct type t.
func layoutOf(t reflect.Type) *layout {
	if l, ok := layouts.Load(t); ok {
		return l.(*layout)
	}
	l := &layout{ok: !decodesItself(t), unknown: -1}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous || strings.Contains(","+opts+",", ",string,") {
			l.ok = false
		}
		if f.Type == unknownType && !f.IsExported() {
			l.unknown = i
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		l.names, l.fields = append(l.names, name), append(l.fields, i)
	}
	// Stored before nests is computed, so a recursive type meets itself as
	// not nesting instead of recursing forever.
	actual, loaded := layouts.LoadOrStore(t, l)
	if loaded {
		return actual.(*layout)
	}
	nests := false
	for _, i := range l.fields {
		nests = nests || typeNests(t.Field(i).Type)
	}
	l2 := *l
	l2.nests = nests
	layouts.Store(t, &l2)
	return &l2
}

// typeNests reports whether decoding t may call an UnmarshalJSON method.
func typeNests(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			return true
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return true
	}
	return t.Kind() == reflect.Struct && layoutOf(t).nests
}

// field returns the index of the field a member name decodes into, with
// encoding/json's rule: the exact name, else a case-insensitive match.
func (l *layout) field(name string) int {
	for i, n := range l.names {
		if n == name {
			return l.fields[i]
		}
	}
	for i, n := range l.names {
		if strings.EqualFold(n, name) {
			return l.fields[i]
		}
	}
	return -1
}

// memberwise reports whether decodeValue reads the JSON value data into v
// itself rather than handing it to the library whole.
func memberwise(data []byte, t reflect.Type) bool {
	switch k := KindOf(data); {
	case k == KindObject && t.Kind() == reflect.Struct:
		l := layoutOf(t)
		return l.ok && l.nests
	case k == KindArray && t.Kind() == reflect.Slice:
		return !decodesItself(t) && typeNests(t.Elem())
	}
	return false
}

// decodeValue decodes the JSON value data into the settable v with the
// result encoding/json gives, member by member where that saves reading
// nested values again (see memberwise).
func decodeValue(data []byte, v reflect.Value) error {
	if KindOf(data) == KindNull {
		return UnmarshalNested(data, v.Addr().Interface())
	}
	for v.Kind() == reflect.Pointer && !decodesItself(v.Type()) {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct && keepsUnknown(v.Type()) && memberwise(data, v.Type()) {
		return decodeKeeper(data, v, layoutOf(v.Type()))
	}
	if u, ok := v.Addr().Interface().(stdjson.Unmarshaler); ok {
		return u.UnmarshalJSON(data)
	}
	if !memberwise(data, v.Type()) {
		return UnmarshalNested(data, v.Addr().Interface())
	}
	if v.Kind() == reflect.Slice {
		return decodeElems(data, v)
	}
	return decodeMembers(data, v, layoutOf(v.Type()))
}

// decodeMembers decodes the object data into the struct v. As in
// encoding/json, a type mismatch is remembered and decoding goes on (the
// first is returned), any other error stops it, and a repeated member is
// decoded again into the same field.
func decodeMembers(data []byte, v reflect.Value, l *layout) error {
	var buf [8]Member
	return decodeScanned(data, scanMembers(data, buf[:0]), v, l)
}

// decodeScanned is decodeMembers with the object's members already
// scanned (ms).
func decodeScanned(data []byte, ms []Member, v reflect.Value, l *layout) error {
	var first error
	for _, m := range ms {
		i := l.field(m.Name)
		if i < 0 {
			continue
		}
		err := decodeValue(data[m.Start:m.End], v.Field(i))
		if err == nil {
			continue
		}
		if !isTypeError(err) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// decodeElems decodes the array data into the slice v: elements already
// there are decoded into, as encoding/json does, and the length set to the
// array's.
func decodeElems(data []byte, v reflect.Value) error {
	var first error
	n := 0
	i := skipSpace(data, 1)
	for i < len(data) && data[i] != ']' {
		end := skipValue(data, i)
		if n >= v.Len() {
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		}
		if err := decodeValue(data[i:end], v.Index(n)); err != nil {
			var te *stdjson.UnmarshalTypeError
			if !errors.As(err, &te) {
				return err
			}
			first = cmpFirst(first, err)
		}
		n++
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	if v.IsNil() {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	v.SetLen(n)
	return first
}

// isTypeError reports whether err is a type mismatch, after which
// encoding/json goes on decoding.
func isTypeError(err error) bool {
	var te *stdjson.UnmarshalTypeError
	return errors.As(err, &te)
}

// cmpFirst returns first when set, else err.
func cmpFirst(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

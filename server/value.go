package idemsrv

import (
	"encoding"
	"encoding/base64"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// value is one parameter as it arrived, reduced to what the OpenAPI styles
// express: a scalar, a list of scalars, or an object whose members are
// values themselves (deepObject nests them).
type value struct {
	present bool
	scalar  string
	list    []string
	members []member
	isList  bool
	isObj   bool
}

type member struct {
	key string
	val value
}

func scalarValue(s string) value { return value{present: true, scalar: s} }

func listValue(l []string) value { return value{present: true, list: l, isList: true} }

// valueKind is what a parameter's Go type asks its wire text to be split
// into: one scalar, a list, or an object's name and value pairs.
type valueKind int

const (
	kindScalar valueKind = iota
	kindList
	kindObject
)

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// valueKindOf reads the kind from the destination type: text unmarshalers
// (time.Time, enums with their own parser) and []byte (base64) are scalars,
// other slices lists, structs and maps objects.
func valueKindOf(t reflect.Type) valueKind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case reflect.PointerTo(t).Implements(textUnmarshalerType) || isUnion(t):
		return kindScalar
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return kindScalar
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return kindList
	case t.Kind() == reflect.Struct || t.Kind() == reflect.Map:
		return kindObject
	}
	return kindScalar
}

// assign stores v into rv, allocating pointers on the way; an absent value
// leaves rv as it is (nil for optional parameters).
func assign(rv reflect.Value, v value) error {
	if !v.present {
		return nil
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return assign(rv.Elem(), v)
	}
	if rv.CanAddr() && isUnion(rv.Type()) {
		return assignUnion(rv, v)
	}
	if rv.CanAddr() && rv.Addr().Type().Implements(textUnmarshalerType) {
		return rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(v.scalar))
	}
	switch rv.Kind() {
	case reflect.Slice:
		return assignList(rv, v)
	case reflect.Struct:
		return assignStruct(rv, v)
	case reflect.Map:
		return assignMap(rv, v)
	case reflect.Interface:
		rv.Set(reflect.ValueOf(v.untyped()))
		return nil
	}
	return setScalar(rv, v.scalar)
}

// untyped is v as an untyped parameter holds it: a string, a []any of
// strings, or a map[string]any.
func (v value) untyped() any {
	switch {
	case v.isList:
		out := make([]any, len(v.list))
		for i, s := range v.list {
			out[i] = s
		}
		return out
	case v.isObj:
		out := make(map[string]any, len(v.members))
		for _, m := range v.members {
			out[m.key] = m.val.untyped()
		}
		return out
	}
	return v.scalar
}

// setScalar parses s into a value of a basic kind.
func setScalar(rv reflect.Value, s string) error {
	switch rv.Kind() {
	case reflect.String:
		rv.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not a boolean", s)
		}
		rv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, rv.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q is not an integer of %d bits", s, rv.Type().Bits())
		}
		rv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, rv.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q is not an unsigned integer of %d bits", s, rv.Type().Bits())
		}
		rv.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, rv.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		rv.SetFloat(f)
	default:
		return fmt.Errorf("a %s cannot be read from a parameter", rv.Type())
	}
	return nil
}

// assignList fills a slice: from the list, or a one-element slice from a
// scalar; []byte is base64, as the client sends format: byte.
func assignList(rv reflect.Value, v value) error {
	if rv.Type().Elem().Kind() == reflect.Uint8 {
		b, err := decodeBase64(v.scalar)
		if err != nil {
			return err
		}
		rv.SetBytes(b)
		return nil
	}
	var items []value
	switch {
	case v.isObj: // a deepObject list: members "0", "1"...
		items = indexedItems(v)
	case v.isList:
		for _, s := range v.list {
			items = append(items, scalarValue(s))
		}
	default:
		items = []value{v}
	}
	out := reflect.MakeSlice(rv.Type(), len(items), len(items))
	for i, it := range items {
		if err := assign(out.Index(i), it); err != nil {
			return err
		}
	}
	rv.Set(out)
	return nil
}

// decodeBase64 reads standard base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(s)
	}
	if err != nil {
		return nil, fmt.Errorf("%q is not base64", s)
	}
	return b, nil
}

// assignStruct sets each member on the field of that JSON name; members
// the struct does not have are ignored, as a JSON body's would be.
func assignStruct(rv reflect.Value, v value) error {
	fields := jsonFields(rv.Type())
	for _, m := range v.members {
		i, ok := fields[m.key]
		if !ok {
			continue
		}
		if err := assign(rv.Field(i), m.val); err != nil {
			return fmt.Errorf("member %q: %w", m.key, err)
		}
	}
	return nil
}

// jsonFields maps the JSON names of a struct's exported fields to their
// index.
func jsonFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out[name] = i
	}
	return out
}

// assignMap fills a map of string keys.
func assignMap(rv reflect.Value, v value) error {
	if rv.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("a %s cannot be read from a parameter", rv.Type())
	}
	m := reflect.MakeMapWithSize(rv.Type(), len(v.members))
	for _, mem := range v.members {
		el := reflect.New(rv.Type().Elem()).Elem()
		if err := assign(el, mem.val); err != nil {
			return fmt.Errorf("member %q: %w", mem.key, err)
		}
		m.SetMapIndex(reflect.ValueOf(mem.key).Convert(rv.Type().Key()), el)
	}
	rv.Set(m)
	return nil
}

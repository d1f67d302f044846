package wire

import (
	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// Discriminator returns the string value of member prop of a JSON object, or
// "" when data is not an object or the member is missing or not a string.
func Discriminator(data []byte, prop string) string {
	var probe map[string]json.RawMessage
	if jsoncodec.Unmarshal(data, &probe) != nil {
		return ""
	}
	var s string
	if jsoncodec.Unmarshal(probe[prop], &s) != nil {
		return ""
	}
	return s
}

// DecodeVariant allocates a new value for the pointer variant *dst points at
// and decodes data into it. It serves discriminated unions: the tag already
// chose the variant.
func DecodeVariant[T any](data []byte, dst **T) error {
	v := new(T)
	if err := jsoncodec.Unmarshal(data, v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// ErrNoVariant is returned when no variant of a union decodes the data (the
// same value as idemrt.ErrNoVariant).
var ErrNoVariant = shared.ErrNoVariant

// DecodeUnion decodes data into the first variant that accepts it, in the
// order given (the document's order). Each target is the address of a
// variant field: a pointer field (**T) or a slice or map field. Two passes
// are made: the first is strict (unknown object members rejected, the JSON
// type must fit the variant), the second lenient, so that a variant that
// names every member wins over one that merely tolerates them. A JSON null
// sets nothing and succeeds.
func DecodeUnion(data []byte, targets ...any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return fmt.Errorf("%w: empty input", ErrNoVariant)
	}
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	for _, strict := range []bool{true, false} {
		for _, t := range targets {
			if tryVariant(data, t, strict, strict) {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: %.80s", ErrNoVariant, data)
}

// tryVariant decodes data into a fresh value of the target's type and stores
// it on success. strict rejects unknown object members; fit requires the
// JSON type to fit the variant.
func tryVariant(data []byte, target any, strict, fit bool) bool {
	field := reflect.ValueOf(target).Elem()
	typ := field.Type()
	if fit && !jsonFits(data[0], typ) {
		return false
	}
	fresh := reflect.New(typ)
	decode := jsoncodec.Unmarshal
	if strict {
		decode = jsoncodec.UnmarshalStrict
	}
	if decode(data, fresh.Interface()) != nil {
		return false
	}
	field.Set(fresh.Elem())
	return true
}

// jsonFits reports whether a JSON value starting with c can plausibly decode
// into t without a custom unmarshaler converting it.
func jsonFits(c byte, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return true
	}
	switch c {
	case '{':
		return t.Kind() == reflect.Struct || t.Kind() == reflect.Map || t.Kind() == reflect.Interface
	case '[':
		return t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Interface
	case '"':
		return t.Kind() == reflect.String || t.Kind() == reflect.Interface ||
			reflect.PointerTo(t).Implements(textUnmarshalerType) || t == bytesType
	case 't', 'f':
		return t.Kind() == reflect.Bool || t.Kind() == reflect.Interface
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Interface:
		return true
	}
	return false
}

// MarshalUnion encodes the first set variant (a non-nil pointer, slice or
// map); with none set it returns the raw JSON the union was decoded from, or
// null.
func MarshalUnion(raw json.RawMessage, variants ...any) ([]byte, error) {
	for _, v := range variants {
		if isSet(reflect.ValueOf(v)) {
			return json.Marshal(v)
		}
	}
	if len(raw) > 0 {
		return raw, nil
	}
	return []byte("null"), nil
}

// isSet reports whether a variant field holds a value: non-nil for the
// nilable kinds, always for the others.
func isSet(rv reflect.Value) bool {
	if !rv.IsValid() {
		return false
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return !rv.IsNil()
	}
	return true
}

// MarshalExtra encodes an object with additional members: plain is the
// object without its extra-members field (a type without MarshalJSON), extra
// the map of the rest. Declared members come first; extras follow sorted by
// name, and an extra never overrides a declared member.
func MarshalExtra[V any](plain any, extra map[string]V) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var declared map[string]json.RawMessage
	if err := json.Unmarshal(b, &declared); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	first := len(declared) == 0
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, dup := declared[k]; dup {
			continue
		}
		if err := writeMember(&buf, k, extra[k], &first); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// writeMember appends "k":v to an object being built.
func writeMember(buf *bytes.Buffer, k string, v any, first *bool) error {
	kb, _ := json.Marshal(k)
	vb, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !*first {
		buf.WriteByte(',')
	}
	*first = false
	buf.Write(kb)
	buf.WriteByte(':')
	buf.Write(vb)
	return nil
}

// UnmarshalDeclared decodes the declared members of a model that also keeps
// additional ones: v is the model as its local type without methods, so
// that its UnmarshalJSON is not called again. It is the runtime's JSON codec,
// with encoding/json's semantics and errors.
func UnmarshalDeclared(data []byte, v any) error {
	return jsoncodec.Unmarshal(data, v)
}

// UnmarshalExtra fills *extra with the members of the JSON object data that
// are not among the declared names. It leaves *extra nil when there are none.
func UnmarshalExtra[V any](data []byte, extra *map[string]V, declared ...string) error {
	var all map[string]json.RawMessage
	if err := jsoncodec.Unmarshal(data, &all); err != nil {
		return err
	}
	for _, d := range declared {
		delete(all, d)
	}
	if len(all) == 0 {
		*extra = nil
		return nil
	}
	m := make(map[string]V, len(all))
	for k, raw := range all {
		var v V
		if err := jsoncodec.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("member %q: %w", k, err)
		}
		m[k] = v
	}
	*extra = m
	return nil
}

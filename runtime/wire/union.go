package wire

import (
	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
)

// Discriminator returns the string value of member prop of a JSON object, or
// "" when data is not an object or the member is missing or not a string.
// It reads the object's top level once and decodes nothing but that member.
func Discriminator(data []byte, prop string) string {
	data = bytes.TrimSpace(data)
	if kindOf(data) != kindObject {
		return ""
	}
	tag := ""
	for _, m := range scanMembers(data) {
		if m.Name == prop && m.Kind == kindString {
			// The last duplicate wins, as in encoding/json.
			tag = memberName(data[m.Start:m.End])
		}
	}
	return tag
}

// DecodeVariant allocates a new value for the pointer variant *dst points at
// and decodes data into it. It serves discriminated unions: the tag already
// chose the variant.
func DecodeVariant[T any](data []byte, dst **T) error {
	v := new(T)
	if err := jsoncodec.UnmarshalNested(data, v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// ErrNoVariant is returned when no variant of a union decodes the data (the
// same value as idemrt.ErrNoVariant).
var ErrNoVariant = shared.ErrNoVariant

// ErrTooDeep is returned when JSON nests deeper than the runtime's limit
// (the same value as idemrt.ErrTooDeep).
var ErrTooDeep = shared.ErrTooDeep

// DecodeUnion decodes data into one variant of a oneOf, chosen without
// decoding: one scan of the value's top level (its kind; for an object its
// member names and the kind of each member value) ranks the variants, and
// the best, first in the order given (the document's) among equals, is
// decoded once. The ranks, best first: an object that has every member the
// variant requires and no member it does not declare, each of a kind its
// field takes; one that may have undeclared members; a value whose JSON
// kind fits. When the chosen variant fails, the others the value may be
// valid for (those that fit at least leniently, or whose members one scan
// cannot know) are tried in rank order, each once, and the first that
// accepts the value wins; the best variant's error is returned when none
// does. Decoding stays linear in the body: at each union level at most one
// of these decodes may reach a union below (a member of the value names a
// field that can hold one), so a failure never decodes the levels below
// twice. A scalar value, whose decoding cannot nest, goes on to the next
// variant that fits. Each target is the address of a variant field (**T,
// or a slice or map field). raw receives a copy of data only when no
// variant fits it (ErrNoVariant). A JSON null sets nothing and succeeds.
func DecodeUnion(data []byte, raw *json.RawMessage, targets ...any) error {
	var buf [8]Variant
	vs := buf[:0]
	for _, t := range targets {
		vs = append(vs, Variant{Target: t})
	}
	return decodeUnion(data, raw, vs, false)
}

// decodeUnion decodes data into the variants: the best one for a oneOf,
// every accepting one for an anyOf (see DecodeUnion and DecodeAnyOf). A
// variant's required members are Variant.Required, or when it is nil its
// fields without omitempty or omitzero (which is how generated models
// mark required members).
func decodeUnion(data []byte, raw *json.RawMessage, vs []Variant, anyOf bool) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return fmt.Errorf("%w: empty input", ErrNoVariant)
	}
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	var mbuf [8]jsoncodec.Member
	v := jsoncodec.ScanInto(data, mbuf[:0])
	var obuf [8]int
	var fbuf [8]fit
	order, fits := rank(&v, vs, obuf[:0], fbuf[:0])
	switch {
	case len(order) == 0:
		return noVariant(data, raw)
	case !v.Kind.Container():
		return decodeScalar(data, raw, vs, order, fits, anyOf)
	}
	b, err := decodeFirst(data, &v, vs, order, fits)
	if err != nil || !anyOf {
		return err
	}
	for _, i := range order {
		if i != b && fits[i] >= fitLenient {
			fillFrom(data, &v, vs[b].Target, vs[i].Target)
		}
	}
	return nil
}

// decodeScalar decodes a scalar value, whose decoding cannot nest: into the
// first variant that decodes it (oneOf), or into every variant whose kind
// fits, else the first that decodes it (anyOf).
func decodeScalar(data []byte, raw *json.RawMessage, vs []Variant, order []int, fits []fit, anyOf bool) error {
	set := false
	for _, i := range order {
		if anyOf && fits[i] == fitStrict && decodeOnce(data, vs[i].Target) == nil {
			set = true
		}
	}
	if set {
		return nil
	}
	for _, i := range order {
		if decodeOnce(data, vs[i].Target) == nil {
			return nil
		}
	}
	return noVariant(data, raw)
}

// rank returns the indexes of the variants that v fits, best first, in the
// given order among equals, and each variant's fit; order and fits are
// buffers to append to.
func rank(v *shallow, vs []Variant, order []int, fits []fit) ([]int, []fit) {
	for i, vr := range vs {
		f := typeInfoOf(targetType(vr.Target)).fit(v, vr.Required)
		fits = append(fits, f)
		if f == fitNone {
			continue
		}
		// Insertion keeps equals in the given order.
		j := len(order)
		order = append(order, i)
		for ; j > 0 && fits[order[j-1]] < f; j-- {
			order[j] = order[j-1]
		}
		order[j] = i
	}
	return order, fits
}

// targetType is the type of the field a target points at.
func targetType(target any) reflect.Type {
	return reflect.TypeOf(target).Elem()
}

// decodeOnce decodes data into the target's field (left zero on failure).
func decodeOnce(data []byte, target any) error {
	field := reflect.ValueOf(target).Elem()
	if err := jsoncodec.UnmarshalNested(data, target); err != nil {
		// Nothing of a failed variant is kept.
		field.SetZero()
		if errors.Is(err, ErrNoVariant) || errors.Is(err, ErrTooDeep) {
			// A level below already named the problem.
			return err
		}
		return fmt.Errorf("%w: %v: %w", ErrNoVariant, field.Type(), err)
	}
	return nil
}

// noVariant keeps a copy of data in *raw, so that the union encodes back
// to what it was given, and returns ErrNoVariant.
func noVariant(data []byte, raw *json.RawMessage) error {
	if raw != nil {
		*raw = append(json.RawMessage(nil), data...)
	}
	return fmt.Errorf("%w: %.80s", ErrNoVariant, data)
}

// MarshalUnion encodes the first set variant (a non-nil pointer, slice or
// map); with none set it returns the raw JSON the union was decoded from, or
// null.
func MarshalUnion(raw json.RawMessage, variants ...any) ([]byte, error) {
	for _, v := range variants {
		if isSet(reflect.ValueOf(v)) {
			return jsoncodec.Marshal(v)
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
	b, err := jsoncodec.Marshal(plain)
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
	vb, err := jsoncodec.Marshal(v)
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
	return jsoncodec.UnmarshalNested(data, v)
}

// UnmarshalExtra fills *extra with the members of the JSON object data that
// are not among the declared names. It leaves *extra nil when there are none.
// The object's members are found by one scan (UnmarshalDeclared has already
// refused data that is not an object) and each extra one is decoded from its
// own bytes, so nothing of data is copied.
func UnmarshalExtra[V any](data []byte, extra *map[string]V, declared ...string) error {
	data = bytes.TrimSpace(data)
	if kindOf(data) != kindObject {
		var all map[string]json.RawMessage
		return jsoncodec.UnmarshalNested(data, &all)
	}
	var m map[string]V
	for _, mb := range scanMembers(data) {
		if slices.Contains(declared, mb.Name) {
			continue
		}
		var v V
		if err := jsoncodec.UnmarshalNested(data[mb.Start:mb.End], &v); err != nil {
			return fmt.Errorf("member %q: %w", mb.Name, err)
		}
		if m == nil {
			m = map[string]V{}
		}
		m[mb.Name] = v
	}
	*extra = m
	return nil
}

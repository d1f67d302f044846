package jsoncodec

import (
	stdjson "encoding/json"
	"errors"
	"reflect"
	"sync"
)

// Models that keep their unknown members. A generated object model keeps
// the members its schema does not declare (a server a release ahead of the
// client sends them) in a field of type Unknown, and they are written back
// when it is encoded. The model has no JSON methods of its own: a method
// would make the library stop at every object, copy its bytes and start
// again inside it, which costs a quarter more on a list of Stripe charges.
// Instead this codec keeps them, for every value it decodes or encodes:
//
//   - Decoding first runs the library with unknown members refused. When
//     that succeeds (the document is up to date), nothing more is done.
//     Otherwise the value is decoded again, leniently, and one walk of the
//     JSON beside the decoded value (collect) hands each model its unknown
//     members. On a union chain, where UnmarshalNested decodes structs
//     member by member, a model's unknown members come from that same scan
//     (decodeKeeper).
//   - Encoding checks whether any model in the value holds unknown members
//     (a nil check per model); only then is the encoded JSON walked beside
//     the value and each model's unknown members appended (splice).
//
// Types with JSON methods of their own (unions, Nullable) are not walked
// into: they decode and encode their values through this codec, which
// keeps the unknown members of the models they hold.

// Keeper is what the pointer type of a model that keeps its unknown
// members implements.
type Keeper interface {
	UnknownMembers() map[string]stdjson.RawMessage
	SetUnknownMembers(map[string]stdjson.RawMessage)
}

// Unknown holds the unknown members of a model: by name, each value's JSON
// exactly as received. The zero value holds none. It holds a pointer, so a
// model holding it stays comparable with ==, which then compares the
// identity of the set, not its members.
type Unknown struct {
	members *map[string]stdjson.RawMessage
}

// NewUnknown returns an Unknown holding m (the zero Unknown when m is
// empty).
func NewUnknown(m map[string]stdjson.RawMessage) Unknown {
	if len(m) == 0 {
		return Unknown{}
	}
	return Unknown{&m}
}

// Members returns the members u holds, nil when none. The map is u's own.
func (u Unknown) Members() map[string]stdjson.RawMessage {
	if u.members == nil {
		return nil
	}
	return *u.members
}

// ErrInvalidUnknown is returned when an unknown member set on a model is
// not valid JSON.
var ErrInvalidUnknown = errors.New("json: an unknown member's value is not valid JSON")

var (
	keeperType     = reflect.TypeFor[Keeper]()
	unknownType    = reflect.TypeFor[Unknown]()
	marshalerType  = reflect.TypeFor[stdjson.Marshaler]()
	textMarshaler  = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
	reachesKeepers sync.Map // reflect.Type -> bool
)

// keepsUnknown reports whether t is a model that keeps its unknown members:
// a struct with an unexported Unknown field whose pointer is a Keeper.
func keepsUnknown(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && layoutOf(t).unknown >= 0 && reflect.PointerTo(t).Implements(keeperType)
}

// selfCoded reports whether t decodes or encodes itself (a union,
// Nullable, time.Time): the walks do not look inside it.
func selfCoded(t reflect.Type) bool {
	return decodesItself(t) || t.Implements(marshalerType) || t.Implements(textMarshaler)
}

// keepsAny reports whether a value of type t may hold a model keeping its
// unknown members where the walks reach it: itself, or through pointers,
// slices, arrays, maps and structs without JSON methods.
func keepsAny(t reflect.Type) bool {
	if t == nil {
		return false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
	default:
		// A scalar (the common value of a Nullable): no look-up.
		return false
	}
	if r, ok := reachesKeepers.Load(t); ok {
		return r.(bool)
	}
	r := reaches(t, map[reflect.Type]bool{})
	reachesKeepers.Store(t, r)
	return r
}

// reaches is keepsAny uncached; seen breaks cycles of recursive types.
func reaches(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return !selfCoded(t) && reaches(t.Elem(), seen)
	case reflect.Struct:
		if keepsUnknown(t) {
			return true
		}
		if selfCoded(t) {
			return false
		}
		for _, i := range layoutOf(t).fields {
			if reaches(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// unmarshalKeeping decodes data into v (whose type keepsAny) with
// encoding/json's result, and hands each model its unknown members: first
// with unknown members refused (fast: through the library), which leaves
// nothing to collect when it succeeds. A second decode writes the same
// members into the same fields as a first that failed half way.
func unmarshalKeeping(data []byte, v any, fast bool) error {
	if fast {
		if fastUnmarshalKnown(data, v) == nil {
			return nil
		}
		if fastUnmarshal(data, v) != nil {
			if err := stdjson.Unmarshal(data, v); err != nil {
				return err
			}
		}
	} else if err := stdjson.Unmarshal(data, v); err != nil {
		return err
	}
	collect(trimSpace(data), reflect.ValueOf(v))
	return nil
}

// collect walks the JSON value data beside v, the value decoded from it,
// and hands each model its unknown members.
func collect(data []byte, v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch {
	case v.Kind() == reflect.Struct && KindOf(data) == KindObject:
		collectStruct(data, v)
	case v.Kind() == reflect.Map && KindOf(data) == KindObject:
		collectMap(data, v)
	case (v.Kind() == reflect.Slice || v.Kind() == reflect.Array) && KindOf(data) == KindArray:
		if !keepsAny(v.Type().Elem()) {
			return
		}
		n := 0
		forElems(data, func(elem []byte) {
			if n < v.Len() {
				collect(elem, v.Index(n))
			}
			n++
		})
	}
}

// collectStruct is collect for a struct.
func collectStruct(data []byte, v reflect.Value) {
	t := v.Type()
	if selfCoded(t) || !keepsAny(t) {
		return
	}
	l := layoutOf(t)
	var buf [16]Member
	ms := scanMembers(data, buf[:0])
	for _, m := range ms {
		if i := l.field(m.Name); i >= 0 && keepsAny(t.Field(i).Type) {
			collect(data[m.Start:m.End], v.Field(i))
		}
	}
	if keepsUnknown(t) && v.CanAddr() {
		v.Addr().Interface().(Keeper).SetUnknownMembers(collectUnknown(data, ms, l))
	}
}

// collectMap is collect for a map with string keys, whose values are not
// addressable: each is copied, given its members and stored again.
func collectMap(data []byte, v reflect.Value) {
	t := v.Type()
	if v.IsNil() || t.Key().Kind() != reflect.String || !keepsAny(t.Elem()) {
		return
	}
	for _, m := range ScanMembers(data) {
		key := reflect.ValueOf(m.Name).Convert(t.Key())
		val := v.MapIndex(key)
		if !val.IsValid() {
			continue
		}
		c := reflect.New(t.Elem()).Elem()
		c.Set(val)
		collect(data[m.Start:m.End], c)
		v.SetMapIndex(key, c)
	}
}

// forElems calls f with each element of the JSON array data.
func forElems(data []byte, f func(elem []byte)) {
	i := skipSpace(data, 1)
	for i < len(data) && data[i] != ']' {
		end := skipValue(data, i)
		if end <= i {
			return // a byte no value starts with: the decoder refused it
		}
		f(data[i:end])
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
}

// collectUnknown returns copies of the scanned members ms of data that l
// does not declare (neither the exact name nor a case-insensitive match),
// nil when there are none. The copies share one allocation, each capped at
// its own end.
func collectUnknown(data []byte, ms []Member, l *layout) map[string]stdjson.RawMessage {
	size, n := 0, 0
	for _, m := range ms {
		if l.field(m.Name) < 0 {
			size += m.End - m.Start
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make(map[string]stdjson.RawMessage, n)
	all := make([]byte, 0, size)
	for _, m := range ms {
		if l.field(m.Name) >= 0 {
			continue
		}
		start := len(all)
		all = append(all, data[m.Start:m.End]...)
		// The last duplicate wins, as for a declared member.
		out[m.Name] = all[start:len(all):len(all)]
	}
	return out
}

// trimSpace is bytes.TrimSpace for JSON's white space.
func trimSpace(data []byte) []byte {
	i := skipSpace(data, 0)
	j := len(data)
	for j > i && (data[j-1] == ' ' || data[j-1] == '\t' || data[j-1] == '\n' || data[j-1] == '\r') {
		j--
	}
	return data[i:j]
}

// decodeKeeper decodes the object data member by member into the model v
// (addressable) and hands it the members it does not declare, found by the
// same scan: the path UnmarshalNested takes on a union chain. As in
// decodeMembers, a type mismatch is returned after the rest is decoded.
func decodeKeeper(data []byte, v reflect.Value, l *layout) error {
	var buf [16]Member
	ms := scanMembers(data, buf[:0])
	err := decodeScanned(data, ms, v, l)
	if err == nil || isTypeError(err) {
		v.Addr().Interface().(Keeper).SetUnknownMembers(collectUnknown(data, ms, l))
	}
	return err
}

package wire

import (
	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"

	"encoding/json"
	"reflect"
)

// Variant is one variant of an anyOf union: the address of its field (a
// pointer, slice or map field) and the members the variant's schema
// requires, which an object must carry for the variant to accept it (nil:
// the struct fields without omitempty or omitzero, which is how generated
// models mark required members, so generated code leaves it nil).
type Variant struct {
	Target   any
	Required []string
}

// DecodeAnyOf decodes data into every variant that accepts it: anyOf means
// the value may match several schemas at once. One scan of the value's top
// level ranks the variants as DecodeUnion does, each with the members its
// schema requires (Variant.Required). The variants that accept are those
// whose JSON kind fits and, for an object, that have their required members
// and whose declared members present are of kinds their fields take. The
// best of them (one with no undeclared member first, then the document's
// order) is decoded once; each other accepting struct variant is then
// filled member by member without decoding any nested value twice: a member
// it shares with the first (same name, same Go type) is copied from it (the
// two variants then share the value a pointer, slice or map holds), a
// scalar member is decoded from its own bytes, and a member holding objects
// or arrays is decoded only when its type cannot reach another union;
// otherwise that variant stays unset. When no variant accepts, the best
// whose JSON kind fits is decoded (a server may omit a required member).
// When that decode fails, the other variants are tried as DecodeUnion
// tries them, and the first that accepts is the one the rest are filled
// from. raw receives a copy of data only when no variant takes it
// (ErrNoVariant). A JSON null sets nothing and succeeds.
func DecodeAnyOf(data []byte, raw *json.RawMessage, variants ...Variant) error {
	return decodeUnion(data, raw, variants, true)
}

// fillFrom sets the variant field target from data, which the variant field
// best already holds decoded, without decoding any nested value a second
// time when that could run another union's decoder (see DecodeAnyOf). It
// leaves target unset when it cannot.
func fillFrom(data []byte, v *shallow, best, target any) {
	field := reflect.ValueOf(target).Elem()
	s := typeInfoOf(field.Type())
	if s.fields == nil || s.extra || v.Kind != kindObject {
		// Not a struct known member by member: decoded whole, when that
		// cannot nest.
		if !s.nests {
			_ = decodeOnce(data, target)
		}
		return
	}
	from := reflect.ValueOf(best).Elem()
	for from.Kind() == reflect.Pointer && !from.IsNil() {
		from = from.Elem()
	}
	fromInfo := typeInfoOf(from.Type())
	out, ok := fillMembers(data, v, s, from, fromInfo)
	if !ok {
		return
	}
	if k, isKeeper := out.Addr().Interface().(jsoncodec.Keeper); isKeeper {
		k.SetUnknownMembers(unknownOf(data, v, s))
	}
	setVariant(field, out)
}

// fillMembers builds the struct s describes from the members of v: copied
// from the struct from when it has the member with the same type, else
// decoded from the member's bytes when that cannot nest.
func fillMembers(data []byte, v *shallow, s *typeInfo, from reflect.Value, fromInfo *typeInfo) (reflect.Value, bool) {
	out := reflect.New(s.typ).Elem()
	for _, m := range v.Members {
		f := s.lookup(m.Name)
		if f == nil {
			continue
		}
		dst := out.Field(f.index)
		if from.Kind() == reflect.Struct && fromInfo.fields != nil {
			if g := fromInfo.lookup(m.Name); g != nil && g.typ == f.typ {
				dst.Set(from.Field(g.index))
				continue
			}
		}
		if m.Kind.Container() && typeInfoOf(f.typ).nests {
			return reflect.Value{}, false
		}
		if jsoncodec.UnmarshalNested(data[m.Start:m.End], dst.Addr().Interface()) != nil {
			return reflect.Value{}, false
		}
	}
	return out, true
}

// setVariant stores the struct value out in a variant field (a pointer
// field, or the struct itself).
func setVariant(field, out reflect.Value) {
	if field.Kind() != reflect.Pointer {
		field.Set(out)
		return
	}
	p := reflect.New(out.Type())
	p.Elem().Set(out)
	field.Set(p)
}

// MarshalAnyOf encodes an anyOf union: the one set variant; several set
// variants that are all objects merge into one object (members of earlier
// variants win, names sorted); otherwise the first set variant. With none
// set it returns the raw JSON the union was decoded from, or null. Only the
// first set variant is encoded whole; of the others, only the members it
// lacks, so variants sharing a nested value (as DecodeAnyOf leaves them)
// encode it once, and a recursive anyOf costs one encoding per level.
func MarshalAnyOf(raw json.RawMessage, variants ...any) ([]byte, error) {
	var set []any
	for _, v := range variants {
		if isSet(reflect.ValueOf(v)) {
			set = append(set, v)
		}
	}
	switch len(set) {
	case 0:
		return MarshalUnion(raw)
	case 1:
		return jsoncodec.Marshal(set[0])
	}
	first, err := jsoncodec.Marshal(set[0])
	if err != nil || kindOf(first) != kindObject {
		return first, err
	}
	members := map[string]json.RawMessage{}
	for _, m := range scanMembers(first) {
		members[m.Name] = first[m.Start:m.End]
	}
	for _, v := range set[1:] {
		ok, err := addMembers(members, v)
		if err != nil {
			return nil, err
		}
		if !ok {
			return first, nil
		}
	}
	return json.Marshal(members)
}

// addMembers adds to members those of the variant v (a set pointer, slice
// or map) that it lacks; false when v does not encode as an object.
func addMembers(members map[string]json.RawMessage, v any) (bool, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	s := typeInfoOf(rv.Type())
	if rv.Kind() != reflect.Struct || s.fields == nil || s.extra || !rv.CanAddr() {
		b, err := jsoncodec.Marshal(v)
		if err != nil || kindOf(b) != kindObject {
			return false, err
		}
		for _, m := range scanMembers(b) {
			if _, dup := members[m.Name]; !dup {
				members[m.Name] = b[m.Start:m.End]
			}
		}
		return true, nil
	}
	for _, f := range s.fields {
		fv := rv.Field(f.index)
		if _, dup := members[f.name]; dup || f.omitted(fv) {
			continue
		}
		b, err := jsoncodec.Marshal(fv.Addr().Interface())
		if err != nil {
			return false, err
		}
		members[f.name] = b
	}
	if k, ok := rv.Addr().Interface().(jsoncodec.Keeper); ok {
		for name, value := range k.UnknownMembers() {
			if _, dup := members[name]; !dup && s.lookup(name) == nil {
				members[name] = value
			}
		}
	}
	return true, nil
}

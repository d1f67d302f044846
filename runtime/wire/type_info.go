package wire

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/internal/shared"
)

// typeInfo is what a union's decoder knows of a variant's Go type without
// decoding anything: the JSON kinds it accepts and, for a struct, its
// declared members. It is derived by reflection once per type (typeInfos).
type typeInfo struct {
	typ   reflect.Type
	kinds kinds
	// fields are a struct's declared members; nil for another type or a
	// struct whose members are not known (it decodes itself).
	fields []field
	// required are the names of the members without omitempty/omitzero.
	required []string
	// extra: the struct keeps undeclared members (additionalProperties).
	extra bool
	// elem is what an array's elements accept (0: not an array type).
	elem kinds
	// nests: decoding the type may run a union's decoder (an UnmarshalJSON
	// method other than the runtime's leaf types), so decoding the same
	// bytes into it twice could double the work of every level below.
	nests bool
}

// field is one declared member of a struct.
type field struct {
	name  string
	index int
	typ   reflect.Type
	kinds kinds
	// omitEmpty and omitZero are the tag's options.
	omitEmpty, omitZero bool
	// nests: decoding into the field may run a union's decoder.
	nests bool
}

// omitted reports whether encoding/json leaves the field's value v out.
func (f *field) omitted(v reflect.Value) bool {
	if f.omitZero {
		if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
			if z.IsZero() {
				return true
			}
		} else if v.IsZero() {
			return true
		}
	}
	if !f.omitEmpty {
		return false
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// typeInfos caches typeInfoOf by reflect.Type.
var typeInfos sync.Map

var (
	unmarshalerType   = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerIf = reflect.TypeFor[encoding.TextUnmarshaler]()
	nullishType       = reflect.TypeFor[shared.Nullish]()
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	byteSliceType     = reflect.TypeFor[[]byte]()
)

// typeInfoOf returns the typeInfo of t, pointers removed.
func typeInfoOf(t reflect.Type) *typeInfo {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := typeInfos.Load(t); ok {
		return s.(*typeInfo)
	}
	s := &typeInfo{typ: t, kinds: kindsOf(t), elem: elemKinds(t), nests: nests(t, map[reflect.Type]bool{})}
	if t.Kind() == reflect.Struct {
		s.fields, s.required, s.extra = structFields(t)
	}
	typeInfos.Store(t, s)
	return s
}

// custom reports whether *t has an UnmarshalJSON method.
func custom(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(unmarshalerType)
}

// kindsOf returns the JSON kinds that decode into t. A null decodes into
// anything (it leaves the value alone), so every set holds kindNull.
func kindsOf(t reflect.Type) kinds {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return kindNull | kindString
	case custom(t) && reflect.PointerTo(t).Implements(nullishType) && t.Kind() == reflect.Struct && t.NumField() > 0:
		// idemrt.Nullable[T]: null, or what its value field takes.
		return kindNull | kindsOf(t.Field(0).Type)
	case custom(t):
		return kindAll
	case reflect.PointerTo(t).Implements(textUnmarshalerIf):
		return kindNull | kindString
	}
	return kindNull | plainKinds(t)
}

// plainKinds are the kinds encoding/json decodes into a type without
// methods.
func plainKinds(t reflect.Type) kinds {
	switch t.Kind() {
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kindInt
	case reflect.Float32, reflect.Float64:
		return kindInt | kindFloat
	case reflect.String:
		return kindString
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !custom(t.Elem()) {
			return kindString | kindArray
		}
		return kindArray
	case reflect.Array:
		return kindArray
	case reflect.Map, reflect.Struct:
		return kindObject
	case reflect.Interface:
		return kindAll
	}
	return 0
}

// elemKinds returns what the elements of a slice or array type accept, or
// 0 for another type or one that decodes itself.
func elemKinds(t reflect.Type) kinds {
	if custom(t) || t == byteSliceType {
		return 0
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		return kindsOf(t.Elem())
	}
	return 0
}

// nests reports whether decoding into t may call an UnmarshalJSON method
// that is not a leaf (time.Time, json.RawMessage, a TextUnmarshaler) or
// Nullable of such a type; seen breaks cycles of recursive types.
func nests(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch {
	case t == timeType || t == rawMessageType:
		return false
	case custom(t) && reflect.PointerTo(t).Implements(nullishType) && t.Kind() == reflect.Struct && t.NumField() > 0:
		return nests(t.Field(0).Type, seen)
	case custom(t):
		return true
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return nests(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && nests(f.Type, seen) {
				return true
			}
		}
	case reflect.Interface:
		return false
	}
	return false
}

// structFields lists the declared members of a struct the way
// encoding/json names them. A struct with an embedded field, or one that
// decodes itself without declaring members in json tags (a union), is
// left opaque (nil fields); one that decodes itself and has tagged fields
// keeps additional members (extra).
func structFields(t reflect.Type) (fields []field, required []string, extra bool) {
	tagged := false
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, nil, false
		}
		tag, hasTag := f.Tag.Lookup("json")
		tagged = tagged || hasTag
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fl := field{name: name, index: i, typ: f.Type, kinds: kindsOf(f.Type),
			omitEmpty: hasOpt(opts, "omitempty"), omitZero: hasOpt(opts, "omitzero"),
			nests: nests(f.Type, map[reflect.Type]bool{})}
		if hasOpt(opts, "string") {
			fl.kinds = kindNull | kindString
		}
		fields = append(fields, fl)
		if !fl.omitEmpty && !fl.omitZero {
			required = append(required, name)
		}
	}
	if custom(t) {
		if !tagged {
			return nil, nil, false
		}
		extra = true
	}
	return fields, required, extra
}

// hasOpt reports whether a json tag's options list opt.
func hasOpt(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}

// lookup returns the field a member name decodes into, with encoding/json's
// rule: the exact name, else a case-insensitive match.
func (s *typeInfo) lookup(name string) *field {
	for i := range s.fields {
		if s.fields[i].name == name {
			return &s.fields[i]
		}
	}
	for i := range s.fields {
		if strings.EqualFold(s.fields[i].name, name) {
			return &s.fields[i]
		}
	}
	return nil
}

// fit ranks how well a scanned value fits a variant.
type fit uint8

const (
	fitNone    fit = iota
	fitKind        // the JSON kind fits
	fitLenient     // an object has the required members and the declared ones it has fit
	fitStrict      // and it has no member the variant does not declare
)

// fit ranks v against s; required replaces the struct's own required
// members when it is not nil (an anyOf variant's, from the schema).
func (s *typeInfo) fit(v *shallow, required []string) fit {
	if !s.kinds.Has(v.Kind) {
		return fitNone
	}
	switch {
	case v.Kind == kindArray && s.elem != 0 && v.First != 0 && !s.elem.Has(v.First):
		return fitKind
	case v.Kind != kindObject:
		return fitStrict
	case s.fields == nil && s.extra == false:
		return fitKind
	}
	if required == nil {
		required = s.required
	}
	if !hasAll(v.Members, required) {
		return fitKind
	}
	strict := true
	for _, m := range v.Members {
		f := s.lookup(m.Name)
		if f == nil {
			strict = strict && s.extra
			continue
		}
		if !f.kinds.Has(m.Kind) {
			return fitKind
		}
	}
	if strict {
		return fitStrict
	}
	return fitLenient
}

// hasAll reports whether members holds every required name (exactly).
func hasAll(members []jsoncodec.Member, required []string) bool {
	for _, r := range required {
		found := false
		for _, m := range members {
			if m.Name == r {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

package jsoncodec

import (
	"reflect"
	"sync"
)

// encodeWalk is what hasUnknown needs to know of a type, worked out once
// per type: every Marshal of a model asks it, for the model and for every
// struct and slice inside, and asking reflect each time (Implements, Field)
// cost more than encoding the value.
type encodeWalk struct {
	// skip: no model keeping unknown members can be reached inside a value
	// of the type (it codes itself, or nothing in it keeps any).
	skip bool
	// unknown is the index of a keeping model's Unknown field, else -1.
	unknown int
	// fields are the indexes of a struct's fields that may reach a model.
	fields []int
}

var encodeWalks sync.Map

// encodeWalkOf returns the cached walk of t, a struct, slice, array or map.
func encodeWalkOf(t reflect.Type) *encodeWalk {
	if w, ok := encodeWalks.Load(t); ok {
		return w.(*encodeWalk)
	}
	w := &encodeWalk{unknown: -1}
	switch t.Kind() {
	case reflect.Struct:
		w.skip = selfCoded(t) || !keepsAny(t)
		if !w.skip && keepsUnknown(t) {
			w.unknown = layoutOf(t).unknown
		}
		if !w.skip {
			for _, i := range layoutOf(t).fields {
				if keepsAny(t.Field(i).Type) {
					w.fields = append(w.fields, i)
				}
			}
		}
	default:
		w.skip = selfCoded(t) || !keepsAny(t.Elem())
	}
	actual, _ := encodeWalks.LoadOrStore(t, w)
	return actual.(*encodeWalk)
}

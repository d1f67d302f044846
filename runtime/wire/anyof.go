package wire

import (
	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"

	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Variant is one variant of an anyOf union: the address of its field (a
// pointer, slice or map field) and the members the variant's schema
// requires, which an object must carry for the variant to accept it.
type Variant struct {
	Target   any
	Required []string
}

// DecodeAnyOf decodes data into every variant that accepts it, in the order
// given: anyOf means the value may match several schemas at once. A variant
// accepts when the JSON type fits it, the data decodes into it (unknown
// object members allowed, since they may belong to another variant) and an
// object has every member the variant requires. When no variant accepts,
// the first that decodes at all is set, so that a server omitting a required
// member still yields a value. A JSON null sets nothing and succeeds; data
// that decodes into no variant fails with ErrNoVariant.
func DecodeAnyOf(data []byte, variants ...Variant) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return fmt.Errorf("%w: empty input", ErrNoVariant)
	}
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	var members map[string]json.RawMessage
	if data[0] == '{' {
		_ = jsoncodec.Unmarshal(data, &members)
	}
	matched := false
	for _, v := range variants {
		if hasMembers(members, v.Required) && tryVariant(data, v.Target, false, true) {
			matched = true
		}
	}
	if matched {
		return nil
	}
	for _, v := range variants {
		if tryVariant(data, v.Target, false, false) {
			return nil
		}
	}
	return fmt.Errorf("%w: %.80s", ErrNoVariant, data)
}

// hasMembers reports whether an object has every required member; members
// is nil when the data is not an object, and then nothing is required.
func hasMembers(members map[string]json.RawMessage, required []string) bool {
	if members == nil {
		return true
	}
	for _, r := range required {
		if _, ok := members[r]; !ok {
			return false
		}
	}
	return true
}

// MarshalAnyOf encodes an anyOf union: the one set variant; several set
// variants that are all objects merge into one object (members of earlier
// variants win, names sorted); otherwise the first set variant. With none
// set it returns the raw JSON the union was decoded from, or null.
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
		return json.Marshal(set[0])
	}
	merged := map[string]json.RawMessage{}
	for _, v := range set {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m == nil {
			return json.Marshal(set[0])
		}
		for k, val := range m {
			if _, dup := merged[k]; !dup {
				merged[k] = val
			}
		}
	}
	return json.Marshal(merged)
}

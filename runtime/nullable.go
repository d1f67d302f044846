package runtime

import (
	"bytes"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// Nullable is an optional member of a JSON object that the API document
// also allows to be null. It tells the three states apart in both
// directions, which a pointer cannot (nil is either "absent" or "null"):
//
//   - absent: the zero value; not sent (generated fields carry omitzero),
//     and what a decoded field stays when the member was missing;
//   - null: [Null]; sent as null (in a form body as an empty value), so a
//     PATCH can clear the member;
//   - a value: [NewNullable].
//
// Generated models use Nullable for optional nullable members only:
// optional members that may not be null stay pointers (*T), and required
// nullable members are pointers too (always sent; nil is null).
type Nullable[T any] struct {
	value T
	state nullState
}

// nullState is the state of a Nullable; the zero value is absent.
type nullState uint8

const (
	nullAbsent nullState = iota
	nullNull
	nullValue
)

// Null returns a Nullable that is sent as an explicit null.
func Null[T any]() Nullable[T] {
	return Nullable[T]{state: nullNull}
}

// NewNullable returns a Nullable holding v.
func NewNullable[T any](v T) Nullable[T] {
	return Nullable[T]{value: v, state: nullValue}
}

// Get returns the value and true when n holds one; for absent and null it
// returns the zero value of T and false.
func (n Nullable[T]) Get() (T, bool) {
	return n.value, n.state == nullValue
}

// Or returns the value n holds, or def when n is absent or null.
func (n Nullable[T]) Or(def T) T {
	if n.state == nullValue {
		return n.value
	}
	return def
}

// IsNull reports whether n is an explicit null.
func (n Nullable[T]) IsNull() bool {
	return n.state == nullNull
}

// IsSet reports whether n is present: null or a value.
func (n Nullable[T]) IsSet() bool {
	return n.state != nullAbsent
}

// IsZero reports whether n is absent. encoding/json's omitzero calls it,
// so an absent member is left out of the encoded object while a null one
// is written.
func (n Nullable[T]) IsZero() bool {
	return n.state == nullAbsent
}

// MarshalJSON writes the value, or null for null. An absent Nullable is
// written as null too when it is encoded where it cannot be left out (an
// element of a slice, a field without omitzero).
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != nullValue {
		return []byte("null"), nil
	}
	return jsoncodec.Marshal(n.value)
}

// UnmarshalJSON reads null as null and anything else as a value. A member
// missing from the object never reaches it, so n stays absent.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		var zero T
		*n = Nullable[T]{value: zero, state: nullNull}
		return nil
	}
	var v T
	if err := jsoncodec.UnmarshalNested(data, &v); err != nil {
		return err
	}
	*n = NewNullable(v)
	return nil
}

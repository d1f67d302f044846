package wire

import (
	"encoding/json"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// Unknown holds the members of a decoded object that its model does not
// declare: by name, each value's JSON exactly as received. Every generated
// object model without additionalProperties holds one in an unexported
// field (its UnknownMembers and SetUnknownMembers methods reach it), so that
// a client a release behind its API loses nothing a server sends, and a
// fetched object sent back (read-modify-write) still carries them.
//
// The runtime's JSON codec fills and writes them: every response, request
// body, union variant and Nullable value goes through it, and so do
// Unmarshal and Marshal below. encoding/json on its own sees the declared
// members only. The zero value holds none; a model holding an Unknown
// stays comparable with ==, which then compares the identity of the set,
// not its members.
type Unknown = jsoncodec.Unknown

// NewUnknown returns an Unknown holding m (the zero Unknown when m is
// empty). Generated SetUnknownMembers methods call it.
func NewUnknown(m map[string]json.RawMessage) Unknown {
	return jsoncodec.NewUnknown(m)
}

// ErrInvalidUnknown is returned when an unknown member set on a model is
// not valid JSON.
var ErrInvalidUnknown = jsoncodec.ErrInvalidUnknown

// Unmarshal decodes data into v with the result of encoding/json.Unmarshal,
// keeping in each generated model the members its schema does not declare;
// JSON nesting deeper than the runtime's limit fails with ErrTooDeep. It is
// what a generated client decodes responses with, for a caller decoding
// JSON it got elsewhere (a webhook, a stored copy).
func Unmarshal(data []byte, v any) error {
	return jsoncodec.Unmarshal(data, v)
}

// Marshal encodes v with the result of encoding/json.Marshal, plus the
// unknown members of each generated model in it, after its declared
// members, sorted by name; one whose name the model declares is never
// written. A value in v without unknown members encodes exactly as with
// encoding/json.
func Marshal(v any) ([]byte, error) {
	return jsoncodec.Marshal(v)
}

// unknownOf returns copies of the members of v (a scanned object) that the
// struct s describes does not declare, nil when none: the unknown members of a
// variant that DecodeAnyOf fills member by member.
func unknownOf(data []byte, v *shallow, s *typeInfo) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for _, m := range v.Members {
		if s.lookup(m.Name) != nil {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[m.Name] = append(json.RawMessage(nil), data[m.Start:m.End]...)
	}
	return out
}

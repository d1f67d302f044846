//go:build !idemgen_stdjson

package jsoncodec

import (
	"bytes"

	json "github.com/goccy/go-json"
)

// The fast path: github.com/goccy/go-json, the only file that names it.

func fastUnmarshal(data []byte, v any) (err error) {
	defer recovered(&err)
	return json.Unmarshal(data, v)
}

func fastUnmarshalStrict(data []byte, v any) (err error) {
	defer recovered(&err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return decodeOne(dec, v)
}

// disallowUnknown is the library's DisallowUnknownFieldsOption flag, which
// only its stream Decoder sets; UnmarshalWithOption takes it here without
// the stream's buffering. TestDisallowUnknownFlag holds the value to the
// one Decoder.DisallowUnknownFields sets.
const disallowUnknown = 1 << 4

func withUnknownDisallowed(o *json.DecodeOption) { o.Flags |= disallowUnknown }

// fastUnmarshalKnown decodes data into v and fails on a member no field of
// v takes.
func fastUnmarshalKnown(data []byte, v any) (err error) {
	defer recovered(&err)
	return json.UnmarshalWithOption(data, v, withUnknownDisallowed)
}

func fastMarshal(v any) (b []byte, err error) {
	defer recovered(&err)
	return json.Marshal(v)
}

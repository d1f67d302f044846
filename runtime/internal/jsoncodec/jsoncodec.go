// Package jsoncodec is the one place the runtime chooses its JSON library.
//
// Response bodies, JSON request bodies, Nullable values and union variants
// go through Unmarshal and Marshal here. The fast path (fast.go) is
// github.com/goccy/go-json, chosen by measurement (docs/benchmarks.md,
// "Per call"): it decodes the benchmark order 6x faster
// than encoding/json with half the allocations and keeps encoding/json's
// semantics (case-insensitive member names, the last duplicate wins,
// omitzero, Marshaler/Unmarshaler and TextMarshaler methods). Whenever it
// fails, encoding/json runs on the same input and its verdict and error
// value are what the caller gets, so errors.As(err, *json.SyntaxError) and
// the error texts stay those of the standard library. A differential fuzz
// test (FuzzDecodeMatchesStd) holds the fast path's successes to
// encoding/json's results.
//
// Building with -tags idemgen_stdjson leaves the fast path out (std.go):
// the benchmarks use it for the encoding/json baseline. When
// encoding/json/v2 leaves GOEXPERIMENT, fast.go is the file that changes.
package jsoncodec

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"reflect"
)

// Unmarshal decodes data into v with the result of encoding/json.Unmarshal,
// after one pass that refuses data nesting deeper than shared.MaxDepth
// (shared.ErrTooDeep).
func Unmarshal(data []byte, v any) error {
	if _, err := checkDepth(data); err != nil {
		return err
	}
	if keepsAny(reflect.TypeOf(v)) {
		return unmarshalKeeping(data, v, true)
	}
	if fastUnmarshal(data, v) == nil {
		return nil
	}
	// The rare path: the standard library decides, and names the error.
	return stdjson.Unmarshal(data, v)
}

// nestedFastDepth is how deep a value decoded by UnmarshalNested may nest
// for the fast path to take it. The fast path copies its input, and copies
// again the bytes of every value with an UnmarshalJSON method it meets, so
// a chain of such values (unions, Nullable) decoded through it costs the
// size of each subtree per level; encoding/json hands such values slices
// of its input and copies nothing.
const nestedFastDepth = 2

// UnmarshalNested is Unmarshal for the decoders that an UnmarshalJSON
// method calls (unions, Nullable, additional members), with the same
// result. A struct or slice on a chain of such values is decoded member by
// member (members.go), so that each level of the chain is read once; other
// values nesting deeper than nestedFastDepth are decoded by encoding/json
// alone, which copies nothing and is not run a second time on a failure.
func UnmarshalNested(data []byte, v any) error {
	d, err := checkDepth(data)
	if err != nil {
		return err
	}
	data = bytes.TrimSpace(data)
	if rv := reflect.ValueOf(v); d > 0 && rv.Kind() == reflect.Pointer && !rv.IsNil() && !decodesItself(rv.Type().Elem()) {
		if e := rv.Elem(); memberwise(data, derefType(e.Type())) {
			return decodeValue(data, e)
		}
	}
	if keepsAny(reflect.TypeOf(v)) {
		return unmarshalKeeping(data, v, d <= nestedFastDepth)
	}
	if d <= nestedFastDepth && fastUnmarshal(data, v) == nil {
		return nil
	}
	return stdjson.Unmarshal(data, v)
}

// derefType is t without its pointers.
func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// UnmarshalStrict is Unmarshal with unknown object members refused (the
// strict pass of a union's decoder), with the verdict of encoding/json's
// Decoder.DisallowUnknownFields.
func UnmarshalStrict(data []byte, v any) error {
	if fastUnmarshalStrict(data, v) == nil {
		return nil
	}
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return decodeOne(dec, v)
}

// decoder is what both libraries' stream decoders offer.
type decoder interface {
	Decode(v any) error
	More() bool
}

// decodeOne decodes one value into v and refuses data after it.
func decodeOne(dec decoder, v any) error {
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errTrailing
	}
	return nil
}

// Marshal encodes v with the result of encoding/json.Marshal, plus the
// unknown members of the models in v (writeUnknown).
func Marshal(v any) ([]byte, error) {
	b, err := fastMarshal(v)
	if err != nil {
		b, err = stdjson.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	return writeUnknown(b, v)
}

// errTrailing: data holds more than one value.
var errTrailing = errors.New("json: data after the value")

// errPanicked marks a panic inside the fast path; the caller never sees
// it, because the standard library then runs and its result is returned.
var errPanicked = errors.New("jsoncodec: the fast path panicked")

// recovered turns a panic of the fast path (its decoders use unsafe) into
// errPanicked, so that a server's answer never crashes the caller.
func recovered(err *error) {
	if r := recover(); r != nil {
		*err = errPanicked
	}
}

// Package jsoncodec is the one place the runtime names its JSON library.
//
// Response bodies and JSON request bodies go through Unmarshal and Marshal
// here. The fast path is github.com/goccy/go-json, chosen by measurement
// (docs/benchmarks.md, "Closing the per-call gap"): it decodes the benchmark
// order 6x faster than encoding/json with half the allocations and keeps
// encoding/json's semantics (case-insensitive member names, the last
// duplicate wins, omitzero, Marshaler/Unmarshaler and TextMarshaler methods).
// Whenever it fails, encoding/json runs on the same input and its verdict
// and error value are what the caller gets, so errors.As(err,
// *json.SyntaxError) and the error texts stay those of the standard
// library. A differential fuzz test (FuzzDecodeMatchesStd in package
// runtime) holds the successful path to encoding/json's results. When
// encoding/json/v2 leaves GOEXPERIMENT, this file is what changes.
package jsoncodec

import (
	"bytes"
	stdjson "encoding/json"
	"errors"

	json "github.com/goccy/go-json"
)

// Unmarshal decodes data into v with the result of encoding/json.Unmarshal.
func Unmarshal(data []byte, v any) error {
	if fastUnmarshal(data, v) == nil {
		return nil
	}
	// The rare path: the standard library decides, and names the error.
	return stdjson.Unmarshal(data, v)
}

// Marshal encodes v with the result of encoding/json.Marshal.
func Marshal(v any) ([]byte, error) {
	if b, err := fastMarshal(v); err == nil {
		return b, nil
	}
	return stdjson.Marshal(v)
}

// fastUnmarshal is the library's decoder; a panic inside it (its decoders
// use unsafe) is a failure, so that a server's answer never crashes the
// caller.
func fastUnmarshal(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errPanicked
		}
	}()
	return json.Unmarshal(data, v)
}

// fastMarshal is the library's encoder, a panic being a failure.
func fastMarshal(v any) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errPanicked
		}
	}()
	return json.Marshal(v)
}

// errPanicked marks a library panic; the caller never sees it, because the
// standard library then runs and its result is returned.
var errPanicked = errors.New("jsoncodec: the library panicked")

// UnmarshalStrict is Unmarshal with unknown object members refused (the
// strict pass of a union's decoder), with encoding/json's
// Decoder.DisallowUnknownFields verdict.
func UnmarshalStrict(data []byte, v any) error {
	if fastUnmarshalStrict(data, v) == nil {
		return nil
	}
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errTrailing
	}
	return nil
}

func fastUnmarshalStrict(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errPanicked
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errTrailing
	}
	return nil
}

// errTrailing: data holds more than one value.
var errTrailing = errors.New("json: data after the value")

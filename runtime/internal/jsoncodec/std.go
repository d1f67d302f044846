//go:build idemgen_stdjson

package jsoncodec

import "errors"

// No fast path: every call goes to encoding/json (the benchmarks' baseline).

var errNoFastPath = errors.New("jsoncodec: built without a fast path")

func fastUnmarshal([]byte, any) error       { return errNoFastPath }
func fastUnmarshalStrict([]byte, any) error { return errNoFastPath }
func fastUnmarshalKnown([]byte, any) error  { return errNoFastPath }
func fastMarshal(any) ([]byte, error)       { return nil, errNoFastPath }

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

func fastMarshal(v any) (b []byte, err error) {
	defer recovered(&err)
	return json.Marshal(v)
}

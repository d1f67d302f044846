package wire

import (
	"fmt"
	"io"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// EncodeJSON marshals a JSON request body once, before the first attempt.
func EncodeJSON(v any) ([]byte, error) {
	b, err := jsoncodec.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding JSON body: %w", err)
	}
	return b, nil
}

// ReadBody reads an io.Reader body once, up front, so that every attempt
// sends the same bytes. A nil reader is an empty body.
func ReadBody(r io.Reader) ([]byte, error) {
	if r == nil {
		return []byte{}, nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading request body: %w", err)
	}
	if c, ok := r.(io.Closer); ok {
		_ = c.Close()
	}
	return b, nil
}

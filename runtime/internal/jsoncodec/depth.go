package jsoncodec

import (
	"fmt"

	"github.com/idemgen/idemgen/runtime/internal/shared"
)

// depth returns how deeply data nests objects and arrays, stopping as soon
// as it passes limit: one pass over the bytes, strings skipped whole (a
// bracket inside a string does not count). It reads invalid JSON too and
// leaves refusing it to the decoder.
func depth(data []byte, limit int) int {
	d, deepest := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i+1)
		case '{', '[':
			d++
			if d > deepest {
				deepest = d
				if deepest > limit {
					return deepest
				}
			}
		case '}', ']':
			d--
		}
	}
	return deepest
}

// checkDepth returns an error matching shared.ErrTooDeep when data nests
// deeper than shared.MaxDepth, and the depth otherwise.
func checkDepth(data []byte) (int, error) {
	d := depth(data, shared.MaxDepth)
	if d > shared.MaxDepth {
		return d, fmt.Errorf("%w: objects and arrays nest more than %d levels", shared.ErrTooDeep, shared.MaxDepth)
	}
	return d, nil
}

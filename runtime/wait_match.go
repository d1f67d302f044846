package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// Match is one condition of a Waiter: the JSON value at Pointer in the
// operation's result, in its string form, is one of In.
//
// The string form of a JSON string is its content, of true and false
// those words, of null "null", and of a number its shortest decimal
// (NumberText): so In "2" matches both the number 2 (or 2.0) and the string
// "2". An object or an array matches nothing, and neither does a pointer
// that leads nowhere.
type Match struct {
	// Pointer is an RFC 6901 JSON pointer into the result ("/status").
	Pointer string
	In      []string
}

// match returns the string form of the value at m.Pointer in doc and
// whether it is one of m.In; false for a Match without values.
func (m Match) match(doc any) (string, bool) {
	if len(m.In) == 0 {
		return "", false
	}
	v, ok := lookupPointer(doc, m.Pointer)
	if !ok {
		return "", false
	}
	s, ok := stringForm(v)
	return s, ok && slices.Contains(m.In, s)
}

// jsonValue is res as the generic JSON value it encodes to, numbers kept
// as json.Number.
func jsonValue(res any) (any, error) {
	b, err := jsoncodec.Marshal(res)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	return v, dec.Decode(&v)
}

// lookupPointer walks an RFC 6901 pointer through objects and arrays.
func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v := doc.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, false
			}
			doc = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			doc = v[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// stringForm is the text a scalar JSON value compares by; false for an
// object or an array.
func stringForm(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case nil:
		return "null", true
	case json.Number:
		return NumberText(string(v)), true
	}
	return "", false
}

// NumberText is the canonical text of a JSON number, so that equal numbers
// written differently compare equal: an integer in int64's range in plain
// decimal ("2", "-17"), another integral value below 1e15 the same way
// ("2.0" and "2e0" are "2"), any other the shortest form strconv gives
// ("2.5", "1e+21"). Text that is no number is returned as it is. The
// parser writes x-waiters values with the same rule.
func NumberText(s string) string {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return s
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

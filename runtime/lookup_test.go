package runtime

import (
	"errors"
	"testing"
)

// TestFoundValue: the found pointer is read as RFC 6901 says (escapes,
// array indexes without leading zeros); absent and null are not found, and
// a scalar, a non-index token into an array, or text that is not JSON are
// errors.
func TestFoundValue(t *testing.T) {
	for _, tc := range []struct {
		body, ptr, want string
		err             bool
	}{
		{`{"data":[{"id":"a"}]}`, "/data/0", `{"id":"a"}`, false},
		{`{"a/b":{"m~n":1}}`, "/a~1b/m~0n", `1`, false},
		{`{"data":[1,2]}`, "/data/1", `2`, false},
		{`{"data":[1,2]}`, "/data/2", ``, false},
		{`{"data":[1,2]}`, "/data/01", ``, true},
		{`{"data":[1,2]}`, "/data/-", ``, true},
		{`{"data":null}`, "/data/0", ``, false},
		{`{"data":[null]}`, "/data/0", ``, false},
		{`{"data":7}`, "/data/0", ``, true},
		{`{"other":1}`, "/data/0", ``, false},
		{` {"data":[ "x" ]} `, "/data/0", `"x"`, false},
		{`{"data":[`, "/data/0", ``, true},
		{``, "/data", ``, true},
	} {
		got, err := foundValue([]byte(tc.body), tc.ptr)
		if (err != nil) != tc.err || string(got) != tc.want {
			t.Errorf("foundValue(%s, %s) = %q, %v; want %q, error %v", tc.body, tc.ptr, got, err, tc.want, tc.err)
		}
	}
	if err := DecodeFound(&Operation{ID: "find"}, LookupResult{Found: true, Status: 200, Body: []byte(`"x"`)}, new(struct{ A int })); !errors.Is(err, ErrLookupAnswer) {
		t.Errorf("DecodeFound of a string into a struct: %v, want ErrLookupAnswer", err)
	}
}

package runtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
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

// TestFoundResult: with a match pointer, the found value must hold the key
// there (a string equal to it, a number or boolean written as it); a value
// that holds another, nothing, or null is another intent's: not found.
// When found ends in an index into an array, the first element of the
// array that holds the key is the result, wherever it is. A scalar where
// the match pointer goes on is an error.
func TestFoundResult(t *testing.T) {
	for _, tc := range []struct {
		body, found, match, want string
		err                      bool
	}{
		{`{"id":"a","reference":"k"}`, "", "/reference", `{"id":"a","reference":"k"}`, false},
		{`{"id":"a","reference":"other"}`, "", "/reference", ``, false},
		{`{"id":"a"}`, "", "/reference", ``, false},
		{`{"id":"a","reference":null}`, "", "/reference", ``, false},
		{`{"id":"a","reference":{"v":"k"}}`, "", "/reference", ``, false},
		{`{"id":"a","meta":{"r~f":"k"}}`, "", "/meta/r~0f", `{"id":"a","meta":{"r~f":"k"}}`, false},
		{`{"id":7,"n":42}`, "", "/n", ``, false},
		{`{"data":[{"r":"x"},{"r":"k","id":2}]}`, "/data/0", "/r", `{"r":"k","id":2}`, false},
		{`{"data":[null,{"r":"k"}]}`, "/data/0", "/r", `{"r":"k"}`, false},
		{`{"data":[{"r":"x"}]}`, "/data/0", "/r", ``, false},
		{`{"data":[]}`, "/data/0", "/r", ``, false},
		{`{}`, "/data/0", "/r", ``, false},
		{`{"data":{"0":{"r":"k"}}}`, "/data/0", "/r", `{"r":"k"}`, false},
		{`{"data":["k"]}`, "/data/0", "/r", ``, true},
		{`"k"`, "", "/r", ``, true},
		{`not json`, "", "/r", ``, true},
	} {
		got, err := foundResult([]byte(tc.body), LookupQuery{Key: "k", Found: tc.found, Match: tc.match})
		if (err != nil) != tc.err || string(got) != tc.want {
			t.Errorf("foundResult(%s, found %q, match %q) = %q, %v; want %q, error %v", tc.body, tc.found, tc.match, got, err, tc.want, tc.err)
		}
	}
	if got, _ := foundResult([]byte(`{"n":42,"b":true}`), LookupQuery{Key: "42", Match: "/n"}); got == nil {
		t.Error("a number written as the key is not held")
	}
	if got, _ := foundResult([]byte(`{"n":42,"b":true}`), LookupQuery{Key: "true", Match: "/b"}); got == nil {
		t.Error("a boolean written as the key is not held")
	}
}

// TestLookupRefusesAnEmptyKey: a lookup for the key "" names no intent
// (and as a query parameter would ask for every one): it is refused with
// ErrEmptyLookupKey, and nothing is sent.
func TestLookupRefusesAnEmptyKey(t *testing.T) {
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { sent.Add(1) }))
	defer srv.Close()
	op := &Operation{ID: "listPayments", Method: "GET", Safety: Idempotent}
	req := &Request{Method: "GET", URL: mustURL(t, srv.URL+"/payments?client_reference=")}
	res, err := Lookup(context.Background(), NewRunner(), op, req, LookupQuery{Found: "/data/0", Match: "/client_reference"})
	if !errors.Is(err, ErrEmptyLookupKey) || res.Found {
		t.Fatalf("Lookup with key \"\" = %+v, %v; want ErrEmptyLookupKey", res, err)
	}
	if n := sent.Load(); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

package jsoncodec_test

import (
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// TestUnknownMembersFoundAnywhereBelow: the encoder's walk (cached per
// type) finds a model holding unknown members however deep it sits, when
// no model above it holds any: a list item, a list item's list item, a map
// value.
func TestUnknownMembersFoundAnywhereBelow(t *testing.T) {
	for _, doc := range []string{
		`{"id":"a","kids":[{"id":"k1"},{"id":"k2","new":1}]}`,
		`{"id":"a","kids":[{"id":"k1","kids":[{"id":"g","new":[true]}]}]}`,
		`{"id":"a","by_name":{"x":{"id":"m","new":"v"}}}`,
	} {
		var n node
		if err := jsoncodec.Unmarshal([]byte(doc), &n); err != nil {
			t.Fatal(err)
		}
		b, err := jsoncodec.Marshal(&n)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, b, []byte(doc)) {
			t.Errorf("encoded\n%s\nwant the members of\n%s", b, doc)
		}
	}
}

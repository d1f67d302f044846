package parser

import (
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestLookupFieldUnion: a field path through a union must exist in every
// variant (Stripe's external accounts: bank_account | card, both with id).
func TestLookupFieldUnion(t *testing.T) {
	obj := func(names ...string) *ir.Schema {
		s := &ir.Schema{Kind: ir.KindObject}
		for _, n := range names {
			s.Properties = append(s.Properties, &ir.Property{Name: n, Type: &ir.Schema{Kind: ir.KindAny}})
		}
		return s
	}
	u := &ir.Schema{Kind: ir.KindUnion, Variants: []*ir.Schema{obj("id", "last4"), obj("id", "brand")}}
	for f, want := range map[string]bool{"id": true, "last4": false, "nope": false} {
		if _, found := lookupField(u, ir.Field{f}); found != want {
			t.Errorf("%s: found %v, want %v", f, found, want)
		}
	}
}

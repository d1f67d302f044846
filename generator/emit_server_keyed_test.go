package generator

import (
	"slices"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestKeyedRouteIdentityAndStoredHeaders: a keyed route names every cookie
// under which its cookie parameters arrive (an exploded object's
// properties too, escaped as the client sends them) and every response
// header the operation declares, once each.
func TestKeyedRouteIdentityAndStoredHeaders(t *testing.T) {
	filter := &ir.Schema{Name: "Filter", Kind: ir.KindObject, Properties: []*ir.Property{
		{Name: "region", Type: str()}, {Name: "a b", Type: str()},
	}}
	op := &ir.Operation{
		Params: []*ir.Parameter{
			{Name: "tenant", In: ir.InCookie, Style: ir.StyleForm, Type: str()},
			{Name: "filter", In: ir.InCookie, Style: ir.StyleForm, Explode: true, Type: ref(filter)},
			{Name: "X-Account", In: ir.InHeader, Type: str()},
		},
		Responses: []*ir.Response{
			{Status: 201, Headers: []*ir.Header{{Name: "Location"}, {Name: "X-Views"}}},
			{Status: 429, Headers: []*ir.Header{{Name: "retry-after"}, {Name: "x-views"}}},
		},
	}
	if got, want := cookieParams(op), []string{"tenant", "filter", "region", "a+b"}; !slices.Equal(got, want) {
		t.Errorf("cookieParams = %q, want %q", got, want)
	}
	if got, want := declaredHeaders(op), []string{"Location", "X-Views", "retry-after"}; !slices.Equal(got, want) {
		t.Errorf("declaredHeaders = %q, want %q", got, want)
	}
}

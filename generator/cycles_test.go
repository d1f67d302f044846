package generator

import (
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestValueCyclesPointOnlyInsideCycles builds A -> B -> C -> A (a cycle of
// required struct members) plus D -> A (outside the cycle): the three cycle
// edges become pointers, D's stays a value.
func TestValueCyclesPointOnlyInsideCycles(t *testing.T) {
	obj := func(name string) *ir.Schema { return &ir.Schema{Name: name, GoName: name, Kind: ir.KindObject} }
	a, b, c, d := obj("A"), obj("B"), obj("C"), obj("D")
	link := func(from, to *ir.Schema) *ir.Property {
		p := prop("next", "Next", ref(to), true)
		from.Properties = append(from.Properties, p)
		return p
	}
	ab, bc, ca, da := link(a, b), link(b, c), link(c, a), link(d, a)
	self := prop("self", "Self", ref(d), true)
	d.Properties = append(d.Properties, self)
	optional := prop("opt", "Opt", ref(a), false)
	b.Properties = append(b.Properties, optional)
	got := valueCycles([]*ir.Schema{a, b, c, d})
	for _, e := range []fieldEdge{{a, ab}, {b, bc}, {c, ca}, {d, self}} {
		if !got[e] {
			t.Errorf("%s.%s should be a pointer", e.owner.Name, e.prop.Name)
		}
	}
	if got[fieldEdge{d, da}] || got[fieldEdge{b, optional}] {
		t.Error("an edge outside every cycle became a pointer")
	}
}

package specdiff

import (
	"fmt"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// enum compares the values of an enum: a value gone takes its Go constant
// with it, a value added decodes in the old client too (enums keep unknown
// values, IsKnown reports them).
func (d *differ) enum(o, n *ir.Schema) {
	news := map[string]int{}
	for i, v := range n.Enum {
		news[v.Value] = i
	}
	olds := map[string]bool{}
	for i, v := range o.Enum {
		olds[v.Value] = true
		j, ok := news[v.Value]
		switch {
		case !ok:
			d.add(Change{Rule: "enum-value-removed", Area: AreaSurface, Breaking: true,
				Pointer: jsonpointer.Join(o.Source.Pointer, "enum", fmt.Sprint(i)), At: n.Source, Was: o.Source,
				Message: fmt.Sprintf("%s no longer has the value %q: the constant %s%s is gone", o.GoName, v.Value, o.GoName, v.GoName)})
		case n.Enum[j].GoName != v.GoName:
			d.add(Change{Rule: "enum-value-renamed", Area: AreaSurface, Breaking: true,
				Pointer: jsonpointer.Join(n.Source.Pointer, "enum", fmt.Sprint(j)), At: n.Source, Was: o.Source,
				Message: fmt.Sprintf("the constant for %s's value %q is %s%s now, was %s%s", n.GoName, v.Value, n.GoName, n.Enum[j].GoName, o.GoName, v.GoName)})
		}
	}
	for j, v := range n.Enum {
		if !olds[v.Value] {
			d.add(Change{Rule: "enum-value-added", Area: AreaSurface,
				Pointer: jsonpointer.Join(n.Source.Pointer, "enum", fmt.Sprint(j)), At: n.Source,
				Message: fmt.Sprintf("%s has a new value %q (%s%s); the old client decodes it as an unknown value", n.GoName, v.Value, n.GoName, v.GoName)})
		}
	}
}

// variants compares the variants of a union by their Go types.
func (d *differ) variants(o, n *ir.Schema) {
	news := map[string]bool{}
	for _, v := range n.Variants {
		news[goType(v)] = true
	}
	olds := map[string]bool{}
	for _, v := range o.Variants {
		t := goType(v)
		olds[t] = true
		if !news[t] {
			d.add(Change{Rule: "variant-removed", Area: AreaSurface, Breaking: true, Pointer: v.Source.Pointer, At: n.Source, Was: v.Source,
				Message: fmt.Sprintf("the union %s no longer has the variant %s", o.GoName, t)})
		}
	}
	for _, v := range n.Variants {
		if t := goType(v); !olds[t] {
			d.add(Change{Rule: "variant-added", Area: AreaSurface, Pointer: v.Source.Pointer, At: v.Source,
				Message: fmt.Sprintf("the union %s has a new variant %s", n.GoName, t)})
		}
	}
}

// requestTypes returns the Go names of the named types a request can
// carry: those reachable from an operation's parameters and request body.
func requestTypes(api *ir.API) map[string]bool {
	seen := map[*ir.Schema]bool{}
	out := map[string]bool{}
	var walk func(s *ir.Schema)
	walk = func(s *ir.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.GoName != "" {
			out[s.GoName] = true
		}
		walk(s.Ref)
		walk(s.Items)
		walk(s.AdditionalProperties)
		for _, p := range s.Properties {
			walk(p.Type)
		}
		for _, v := range s.Variants {
			walk(v)
		}
	}
	for _, op := range api.Operations {
		for _, p := range op.Params {
			walk(p.Type)
		}
		if op.Body != nil {
			for _, m := range op.Body.Content {
				walk(m.Schema)
			}
		}
	}
	return out
}

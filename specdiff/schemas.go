package specdiff

import (
	"fmt"

	"github.com/idemgen/idemgen/ir"
)

// schemas compares the named types of both versions, matched by Go name:
// the name a Go caller writes.
func (d *differ) schemas() {
	news := map[string]*ir.Schema{}
	for _, s := range d.new.Schemas {
		news[s.GoName] = s
	}
	olds := map[string]bool{}
	for _, o := range d.old.Schemas {
		olds[o.GoName] = true
		n := news[o.GoName]
		if n == nil {
			d.add(Change{Rule: "type-removed", Area: AreaSurface, Breaking: true, Pointer: o.Source.Pointer, Was: o.Source,
				Message: fmt.Sprintf("the type %s is gone", o.GoName)})
			continue
		}
		d.schema(o, n)
	}
	for _, n := range d.new.Schemas {
		if !olds[n.GoName] {
			d.add(Change{Rule: "type-added", Area: AreaSurface, Pointer: n.Source.Pointer, At: n.Source,
				Message: fmt.Sprintf("the type %s is new", n.GoName)})
		}
	}
}

// declShape is what kind of Go declaration a named schema becomes: a
// struct, an enum of some base type, a union, or a defined type over
// another type.
func declShape(s *ir.Schema) string {
	switch s.Kind {
	case ir.KindObject:
		if len(s.Properties) > 0 {
			return "struct"
		}
	case ir.KindEnum:
		return "enum of " + enumBase(s.EnumBase)
	case ir.KindUnion:
		return "union"
	}
	return byName.goTypeSeen(s, map[*ir.Schema]bool{s: true})
}

// schema compares one named type present in both versions.
func (d *differ) schema(o, n *ir.Schema) {
	if os, ns := declShape(o), declShape(n); os != ns {
		d.add(Change{Rule: "type-changed", Area: AreaSurface, Breaking: true, Pointer: n.Source.Pointer, At: n.Source, Was: o.Source,
			Message: fmt.Sprintf("the type %s changed from %s to %s", n.GoName, os, ns)})
		return
	}
	switch n.Kind {
	case ir.KindObject:
		d.members(o, n)
	case ir.KindEnum:
		d.enum(o, n)
	case ir.KindUnion:
		d.variants(o, n)
	}
}

// members compares the members of an object.
func (d *differ) members(o, n *ir.Schema) {
	olds := map[string]*ir.Property{}
	for _, p := range o.Properties {
		olds[p.Name] = p
	}
	request := d.requestTypes[n.GoName]
	for _, p := range n.Properties {
		was := olds[p.Name]
		delete(olds, p.Name)
		if was == nil {
			d.memberAdded(n, p, request)
			continue
		}
		d.member(n, was, p, request)
	}
	for _, p := range o.Properties {
		if olds[p.Name] == nil {
			continue
		}
		d.add(Change{Rule: "member-removed", Area: AreaSurface, Breaking: true, Pointer: propSource(o, p).Pointer, At: n.Source, Was: propSource(o, p),
			Message: fmt.Sprintf("%s.%s (%q) is gone", o.GoName, p.GoName, p.Name)})
	}
}

// propSource locates a member: its type's source, which the parser reads
// at the member.
func propSource(s *ir.Schema, p *ir.Property) ir.Source {
	if p.Type != nil && p.Type.Source.File != "" {
		return p.Type.Source
	}
	return s.Source
}

func (d *differ) memberAdded(n *ir.Schema, p *ir.Property, request bool) {
	at := propSource(n, p)
	c := Change{Rule: "member-added", Area: AreaSurface, Pointer: at.Pointer, At: at,
		Message: fmt.Sprintf("%s has a new member %s (%q)", n.GoName, p.GoName, p.Name)}
	if p.Required && request && !p.ReadOnly {
		c.Rule, c.Breaking = "member-added-required", true
		c.Message = fmt.Sprintf("%s has a new required member %s (%q), and requests carry %s: the old client never sends it", n.GoName, p.GoName, p.Name, n.GoName)
	}
	d.add(c)
}

// member compares one member present in both versions.
func (d *differ) member(n *ir.Schema, was, p *ir.Property, request bool) {
	at := propSource(n, p)
	c := Change{Rule: "type-changed", Area: AreaSurface, Breaking: true, Pointer: at.Pointer, At: at, Was: propSource(n, was)}
	name := fmt.Sprintf("%s.%s (%q)", n.GoName, p.GoName, p.Name)
	// Both typed as NEW's is required: a change of requiredness is a finding
	// of its own, which says what it does to the field's type.
	same := *was
	same.Required = p.Required
	if ot, nt := fieldType(&same), fieldType(p); ot != nt {
		var how string
		c.Rule, how = retype(byShape.fieldType(&same) == byShape.fieldType(p), "type-changed")
		c.Message = fmt.Sprintf("%s %s: %s now, was %s", name, how, nt, ot)
		d.add(c)
	}
	if was.Required != p.Required {
		d.memberRequired(n, was, p, request, c, name)
	}
	if was.GoName != p.GoName {
		c.Rule = "member-renamed"
		c.Message = fmt.Sprintf("the member %q of %s is the field %s now, was %s", p.Name, n.GoName, p.GoName, was.GoName)
		d.add(c)
	}
}

// memberRequired reports a member made required (breaking in a type
// requests carry: an old caller may leave it out) or optional; either is
// breaking too when the field's Go type changes (a pointer added or gone).
func (d *differ) memberRequired(n *ir.Schema, was, p *ir.Property, request bool, c Change, name string) {
	before := *p
	before.Required = was.Required
	ot, nt := fieldType(&before), fieldType(p)
	c.Rule = "member-" + ifElse(p.Required, "required", "optional")
	c.Breaking = ot != nt || (p.Required && request && !p.ReadOnly)
	c.Message = fmt.Sprintf("%s is %s now", name, ifElse(p.Required, "required", "optional"))
	if p.Required && request && !p.ReadOnly {
		c.Message += fmt.Sprintf(", and requests carry %s: an old caller may leave it out", n.GoName)
	}
	if ot != nt {
		c.Message += fmt.Sprintf("; the field is %s now, was %s", nt, ot)
	}
	d.add(c)
}

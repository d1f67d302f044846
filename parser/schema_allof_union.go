package parser

import (
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// unionMember returns the index of the one allOf member that is a real
// union (a oneOf/anyOf with at least two variants and no properties of its
// own) when every other member is an object; -1 otherwise.
func unionMember(v *openapi3.Schema) int {
	found := -1
	for i, m := range v.AllOf {
		if m == nil || m.Value == nil {
			return -1
		}
		mv := m.Value
		switch {
		case len(mv.OneOf)+len(mv.AnyOf) > 0 && len(mv.Properties) == 0 && len(realVariants(mv)) >= 2:
			if found >= 0 {
				return -1
			}
			found = i
		case len(mv.OneOf)+len(mv.AnyOf) > 0 || !isObjectish(mv):
			return -1
		}
	}
	return found
}

// realVariants returns the indexes of a union's variants that describe a
// value (not null, not a bare constraint).
func realVariants(v *openapi3.Schema) []int {
	refs, _ := unionRefs(v)
	var out []int
	for i, r := range refs {
		if r != nil && r.Value != nil && (r.Ref != "" || (!r.Value.Type.Is("null") && !constraintOnly(r.Value))) {
			out = append(out, i)
		}
	}
	return out
}

func unionRefs(v *openapi3.Schema) (openapi3.SchemaRefs, string) {
	if len(v.OneOf) > 0 {
		return v.OneOf, "oneOf"
	}
	return v.AnyOf, "anyOf"
}

// allOfUnion distributes an allOf over its one union member: `allOf: [oneOf:
// [A, B], {properties: P}]` is the union of A+P and B+P (OpenAI's stream
// events, Discord's multipart invites). Each merged variant is a declaration
// named after the allOf and the variant; a discriminator of the union keeps
// selecting them.
func (sb *schemaBuilder) allOfUnion(s *ir.Schema, v *openapi3.Schema, at loc, hint nameHint, ui int) *ir.Schema {
	u := v.AllOf[ui].Value
	refs, key := unionRefs(u)
	uat := sb.b.follow(at.at("allOf", strconv.Itoa(ui)))
	s.Kind, s.Union = ir.KindUnion, ir.OneOf
	if key == "anyOf" {
		s.Union = ir.AnyOf
	}
	merged := map[*ir.Schema]*ir.Schema{}
	var originals []*ir.Schema
	for _, i := range realVariants(u) {
		vat := uat.at(key, strconv.Itoa(i))
		name := variantHint(hint, refs[i], i)
		var orig *ir.Schema
		if refs[i].Ref != "" {
			// Only to name the merged variant after it and to remap the
			// discriminator; an inline variant is merged without a type of
			// its own.
			orig = sb.refUse(refs[i], vat)
			name = hint.member(orig.Ref.GoName)
		}
		m := newMerge(sb, name)
		m.add(refs[i].Value, sb.b.follow(vat), false)
		for j, member := range v.AllOf {
			if j != ui {
				m.add(member.Value, sb.b.follow(at.at("allOf", strconv.Itoa(j))), false)
			}
		}
		m.addOwn(v, at)
		decl := m.object(&ir.Schema{Source: sb.b.l.sink.source(vat)})
		decl.Name = name.String()
		use := &ir.Schema{Kind: ir.KindRef, Source: decl.Source}
		decl, fresh := sb.inl.intern(decl, name, use)
		if fresh {
			decl.GoName, decl.Inline = sb.tmpNames.unique(goNameOf(decl.Name)), true
			sb.decls = append(sb.decls, decl)
		}
		use.Ref = decl
		s.Variants = append(s.Variants, use)
		if orig != nil {
			merged[orig.Ref] = decl
			originals = append(originals, orig)
		}
	}
	if u.Discriminator != nil {
		s.Discriminator = remapDiscriminator(sb.discriminator(u.Discriminator, originals, uat), merged)
	}
	return s
}

// remapDiscriminator points a discriminator's entries at the merged variants.
func remapDiscriminator(d *ir.Discriminator, merged map[*ir.Schema]*ir.Schema) *ir.Discriminator {
	out := &ir.Discriminator{Property: d.Property}
	for _, m := range d.Mapping {
		if to := merged[m.Schema]; to != nil {
			out.Mapping = append(out.Mapping, ir.DiscriminatorMapping{Value: m.Value, Schema: to})
		}
	}
	return out
}

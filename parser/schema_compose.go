package parser

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// allOf flattens an allOf into one object: the members' properties (members
// of members included), the schema's own, and every required list. A
// property two members declare with different shapes is reported, and the
// later declaration wins (later members usually refine earlier ones). A
// one-member allOf without properties of its own is the 3.0 idiom for
// "this reference, plus nullable/description": it becomes a use of the member.
//
// Members that only annotate ({}, {nullable: true}, {example: …}) describe
// no shape: `allOf: [$ref, {nullable: true}]` is a use of the reference
// (a union stays a union), and an allOf of annotations only is any JSON
// value (Box's metadata values), not an object.
func (sb *schemaBuilder) allOf(s *ir.Schema, v *openapi3.Schema, at loc, hint nameHint) *ir.Schema {
	real, nullable := shapedMembers(v.AllOf)
	if len(real) <= 1 && len(v.Properties) == 0 && len(v.OneOf) == 0 && len(v.AnyOf) == 0 {
		if len(real) == 0 {
			if !v.Type.IsEmpty() || len(v.Required) > 0 || v.AdditionalProperties.Schema != nil {
				return sb.allOfMerged(s, v, at, hint)
			}
			s.Kind, s.Nullable = ir.KindAny, s.Nullable || nullable
			return s
		}
		i := strconv.Itoa(real[0])
		u := sb.useHint(v.AllOf[real[0]], at.at("allOf", i), hint)
		u.Nullable = u.Nullable || s.Nullable || nullable
		u.ReadOnly, u.WriteOnly = u.ReadOnly || s.ReadOnly, u.WriteOnly || s.WriteOnly
		u.Deprecated = u.Deprecated || s.Deprecated
		if s.Description != "" {
			u.Description = s.Description
		}
		u.Source = s.Source
		return u
	}
	return sb.allOfMerged(s, v, at, hint)
}

// allOfMerged is allOf for members that describe shapes.
func (sb *schemaBuilder) allOfMerged(s *ir.Schema, v *openapi3.Schema, at loc, hint nameHint) *ir.Schema {
	if ui := unionMember(v); ui >= 0 {
		return sb.allOfUnion(s, v, at, hint, ui)
	}
	m := newMerge(sb, hint)
	m.add(v, at, true)
	if len(m.order) == 0 && m.scalar != nil && m.addl == nil {
		// allOf of non-objects (a string type and a format, say): the first
		// typed member describes the value.
		u := m.scalar
		u.Nullable = u.Nullable || s.Nullable
		return u
	}
	return m.object(s)
}

// shapedMembers lists the allOf members that describe a shape (a reference,
// a type, properties, a required list…), and reports whether an annotation
// member declares nullable.
func shapedMembers(members openapi3.SchemaRefs) (real []int, nullable bool) {
	for i, m := range members {
		if m != nil && m.Ref == "" && m.Value != nil && constraintOnly(m.Value) && len(m.Value.Required) == 0 {
			nullable = nullable || m.Value.Nullable
			continue
		}
		real = append(real, i)
	}
	return real, nullable
}

func newMerge(sb *schemaBuilder, hint nameHint) *merge {
	return &merge{sb: sb, hint: hint, seen: map[*openapi3.Schema]bool{}, props: map[string]*mergedProp{}, required: map[string]bool{}}
}

// object fills s with the merged members.
func (m *merge) object(s *ir.Schema) *ir.Schema {
	s.Kind = ir.KindObject
	names := newNamer()
	for _, name := range m.order {
		p := m.props[name].prop
		p.GoName = names.unique(GoName(name))
		p.Required = m.required[name]
		s.Properties = append(s.Properties, p)
	}
	for _, name := range sortedMapKeys(m.required) {
		if m.props[name] == nil {
			s.Properties = append(s.Properties, &ir.Property{Name: name, GoName: names.unique(GoName(name)), Required: true, Type: &ir.Schema{Kind: ir.KindAny}})
		}
	}
	sort.SliceStable(s.Properties, func(i, j int) bool { return s.Properties[i].Name < s.Properties[j].Name })
	s.AdditionalProperties = m.addl
	if len(s.Properties) == 0 && s.AdditionalProperties != nil {
		s.Kind = ir.KindMap
	}
	for _, p := range s.Properties {
		if !validTagName(p.Name) {
			s.Kind, s.Properties, s.AdditionalProperties = ir.KindMap, nil, &ir.Schema{Kind: ir.KindAny}
			break
		}
	}
	return s
}

// merge accumulates the members of an allOf.
type merge struct {
	sb       *schemaBuilder
	hint     nameHint
	seen     map[*openapi3.Schema]bool
	props    map[string]*mergedProp
	order    []string
	required map[string]bool
	addl     *ir.Schema
	scalar   *ir.Schema
}

type mergedProp struct {
	prop *ir.Property
	sig  string
}

// add merges one schema (the allOf holder itself when self is set) and its
// own allOf members.
func (m *merge) add(v *openapi3.Schema, at loc, self bool) {
	if v == nil || m.seen[v] {
		return
	}
	m.seen[v] = true
	for i, member := range v.AllOf {
		if member == nil || member.Value == nil {
			continue
		}
		mat := m.sb.b.follow(at.at("allOf", strconv.Itoa(i)))
		if len(member.Value.OneOf)+len(member.Value.AnyOf) > 0 && len(member.Value.Properties) == 0 {
			m.sb.b.l.sink.warnf(mat, "", ruleAllOfConflict, "an allOf member that is a oneOf/anyOf cannot be flattened into an object; its variants are ignored")
			continue
		}
		if !isObjectish(member.Value) && m.scalar == nil {
			m.scalar = m.sb.useHint(member, at.at("allOf", strconv.Itoa(i)), m.hint)
		}
		m.add(member.Value, mat, false)
	}
	m.addOwn(v, at)
}

// addOwn merges a schema's own members: required, properties and
// additionalProperties, not its allOf.
func (m *merge) addOwn(v *openapi3.Schema, at loc) {
	for _, r := range v.Required {
		m.required[r] = true
	}
	for _, name := range sortedMapKeys(v.Properties) {
		m.addProp(name, v.Properties[name], at.at("properties", name))
	}
	if ap := v.AdditionalProperties.Schema; ap != nil && m.addl == nil {
		m.addl = m.sb.useHint(ap, at.at("additionalProperties"), m.hint.glue("Value"))
	}
}

func (m *merge) addProp(name string, pr *openapi3.SchemaRef, at loc) {
	p := m.sb.property(pr, name, false, at, m.hint, newNamer())
	sig := shapeSig(p.Type)
	if old, ok := m.props[name]; ok {
		if old.sig != sig && old.sig != "any" && sig != "any" {
			m.sb.b.l.sink.warnf(at, "", ruleAllOfConflict,
				"property %q is declared as %s by one allOf member and %s by another; the later one is used", name, old.sig, sig)
		}
		if p.Description == "" {
			p.Description = old.prop.Description
		}
		m.props[name] = &mergedProp{p, sig}
		return
	}
	m.props[name] = &mergedProp{p, sig}
	m.order = append(m.order, name)
}

// isObjectish reports whether a schema contributes object members.
func isObjectish(v *openapi3.Schema) bool {
	return v.Type.Is("object") || len(v.Properties) > 0 || len(v.AllOf) > 0 ||
		v.AdditionalProperties.Schema != nil || (v.Type.IsEmpty() && len(v.Enum) == 0 && v.Items == nil)
}

// shapeSig summarises a type for conflict detection: an enum refines its
// base type, so both sign as the base.
func shapeSig(s *ir.Schema) string {
	d := s.Deref()
	switch {
	case d == nil:
		return "any"
	case s.Kind == ir.KindRef && (d.Kind == ir.KindObject || d.Kind == ir.KindUnion):
		return d.GoName
	case d.Kind == ir.KindEnum:
		return d.EnumBase.String()
	}
	return d.Kind.String()
}

// union converts oneOf/anyOf. Null variants make the union nullable; variants
// that only add constraints (`oneOf: [{required: [a]}, {required: [b]}]`)
// leave the schema as its plain type; a single remaining variant without a
// discriminator is a use of that variant.
func (sb *schemaBuilder) union(s *ir.Schema, v *openapi3.Schema, at loc, hint nameHint) *ir.Schema {
	refs, key := v.OneOf, "oneOf"
	s.Union = ir.OneOf
	if len(refs) == 0 {
		refs, key, s.Union = v.AnyOf, "anyOf", ir.AnyOf
	}
	var real []int
	for i, r := range refs {
		switch {
		case r == nil || r.Value == nil:
		case r.Ref == "" && r.Value.Type.Is("null"):
			s.Nullable = true
		case r.Ref == "" && (constraintOnly(r.Value) || refines(r.Value, v)):
		default:
			real = append(real, i)
		}
	}
	if len(real) == 0 {
		return sb.typed(s, v, at, hint)
	}
	if values, ok := constantVariants(refs, real); ok && v.Discriminator == nil && len(v.Properties) == 0 {
		// oneOf: [{const: STARTED, title: …}, …] (Discord) is an enumeration:
		// as a union of one-value enums the first variant would take every
		// value, since enums decode unknown values.
		e := *v
		e.OneOf, e.AnyOf, e.Enum, e.Const = nil, nil, values, nil
		return sb.enum(s, &e, at, hint)
	}
	if len(real) == 1 && v.Discriminator == nil && len(v.Properties) == 0 {
		u := sb.useHint(refs[real[0]], at.at(key, strconv.Itoa(real[0])), hint)
		u.Nullable = u.Nullable || s.Nullable
		if s.Description != "" {
			u.Description = s.Description
		}
		return u
	}
	if len(v.Properties) > 0 {
		sb.b.l.sink.warnf(at, "", ruleUnsupportedSchema, "properties beside %s are not merged into its variants; they are ignored", key)
	}
	s.Kind = ir.KindUnion
	for _, i := range real {
		s.Variants = append(s.Variants, sb.useHint(refs[i], at.at(key, strconv.Itoa(i)), variantHint(hint, refs[i], i)))
	}
	if v.Discriminator != nil {
		s.Discriminator = sb.discriminator(v.Discriminator, s.Variants, at)
	}
	return s
}

// constantVariants returns the values of variants that are each inline
// constants (const, or a one-value enum) and nothing more.
func constantVariants(refs openapi3.SchemaRefs, real []int) ([]any, bool) {
	if len(real) < 2 {
		return nil, false
	}
	var values []any
	for _, i := range real {
		r := refs[i].Value
		switch {
		case refs[i].Ref != "" || len(r.Properties) > 0 || r.Items != nil || len(r.AllOf)+len(r.OneOf)+len(r.AnyOf) > 0:
			return nil, false
		case r.Const != nil:
			values = append(values, r.Const)
		case len(r.Enum) == 1:
			values = append(values, r.Enum[0])
		default:
			return nil, false
		}
	}
	return values, true
}

// constraintOnly reports whether a variant only constrains (required,
// min/max) without describing a type of its own.
func constraintOnly(v *openapi3.Schema) bool {
	return v.Type.IsEmpty() && len(v.Properties) == 0 && v.Items == nil && len(v.AllOf)+len(v.OneOf)+len(v.AnyOf) == 0 &&
		len(v.Enum) == 0 && v.Const == nil && v.AdditionalProperties.Schema == nil && v.Format == ""
}

// refines reports whether an inline variant only narrows the object that
// holds the union: no type other than object, and properties that object
// already declares (GitHub writes "status is completed, or queued" this way).
func refines(variant, parent *openapi3.Schema) bool {
	if len(parent.Properties) == 0 || !(variant.Type.IsEmpty() || variant.Type.Is("object")) ||
		variant.Items != nil || len(variant.AllOf)+len(variant.OneOf)+len(variant.AnyOf) > 0 || len(variant.Enum) > 0 {
		return false
	}
	for name := range variant.Properties {
		if parent.Properties[name] == nil {
			return false
		}
	}
	return true
}

// variantHint names an inline variant: by its title when it has one, else by
// its position (PaymentMethodVariant2).
func variantHint(hint nameHint, r *openapi3.SchemaRef, i int) nameHint {
	if t := r.Value.Title; t != "" {
		return hint.member(GoName(t))
	}
	return hint.glue("Variant" + strconv.Itoa(i+1))
}

// discriminator resolves explicit mappings to declarations and fills the
// implicit ones: a variant that is a named schema and that no explicit entry
// maps to is selected by its schema name.
func (sb *schemaBuilder) discriminator(d *openapi3.Discriminator, variants []*ir.Schema, at loc) *ir.Discriminator {
	out := &ir.Discriminator{Property: d.PropertyName}
	mapped := map[*ir.Schema]bool{}
	dat := at.at("discriminator", "mapping")
	for _, value := range sortedMapKeys(d.Mapping) {
		ref := d.Mapping[value].Ref
		if !strings.ContainsAny(ref, "#/") {
			ref = "#/components/schemas/" + ref
		}
		file, frag := splitRef(ref)
		decl := sb.byKey[declKey(resolveFile(at.file, file), frag)]
		if decl == nil {
			sb.b.l.sink.warnf(dat.at(value), "", ruleUnsupportedSchema, "discriminator value %q maps to %q, which is not a known schema; ignored", value, d.Mapping[value].Ref)
			continue
		}
		mapped[decl] = true
		out.Mapping = append(out.Mapping, ir.DiscriminatorMapping{Value: value, Schema: decl})
	}
	for _, v := range variants {
		if v.Kind == ir.KindRef && !mapped[v.Ref] {
			mapped[v.Ref] = true
			out.Mapping = append(out.Mapping, ir.DiscriminatorMapping{Value: v.Ref.Name, Schema: v.Ref})
		}
	}
	sort.SliceStable(out.Mapping, func(i, j int) bool { return out.Mapping[i].Value < out.Mapping[j].Value })
	return out
}

// enum converts enum (and 3.1 const, a one-value enum). A null member makes
// the enum nullable; a boolean enum is just a boolean.
func (sb *schemaBuilder) enum(s *ir.Schema, v *openapi3.Schema, at loc, hint nameHint) *ir.Schema {
	values := v.Enum
	if len(values) == 0 {
		values = []any{v.Const}
	}
	base := enumBase(v, values)
	if base == ir.KindBool || base == ir.KindAny {
		return sb.typed(s, v, at, hint)
	}
	s.Kind, s.EnumBase = ir.KindEnum, base
	names := newNamer()
	seen := map[string]bool{}
	for _, e := range values {
		if e == nil {
			s.Nullable = true
			continue
		}
		text := enumText(e)
		if seen[text] {
			continue
		}
		seen[text] = true
		s.Enum = append(s.Enum, ir.EnumValue{Value: text, GoName: names.unique(enumGoName(text))})
	}
	if len(s.Enum) == 0 {
		return sb.typed(s, v, at, hint)
	}
	return s
}

// enumBase decides an enum's base kind from its type, or from its values
// when the type is missing.
func enumBase(v *openapi3.Schema, values []any) ir.Kind {
	switch {
	case v.Type.Includes("string"):
		return ir.KindString
	case v.Type.Includes("integer"):
		return ir.KindInteger
	case v.Type.Includes("number"):
		return ir.KindNumber
	case v.Type.Includes("boolean"):
		return ir.KindBool
	}
	kind := ir.KindAny
	for _, e := range values {
		var k ir.Kind
		switch x := e.(type) {
		case nil:
			continue
		case string:
			k = ir.KindString
		case bool:
			k = ir.KindBool
		case float64:
			k = ir.KindNumber
			if x == float64(int64(x)) {
				k = ir.KindInteger
			}
		case int, int64:
			k = ir.KindInteger
		default:
			return ir.KindAny
		}
		if kind != ir.KindAny && kind != k {
			if (kind == ir.KindInteger && k == ir.KindNumber) || (kind == ir.KindNumber && k == ir.KindInteger) {
				kind = ir.KindNumber
				continue
			}
			return ir.KindAny
		}
		kind = k
	}
	return kind
}

func enumText(e any) string {
	switch x := e.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(e)
}

// enumGoName names an enum constant's suffix: "pending" -> Pending,
// "" -> Empty, "-1" -> Minus1, "1.5" -> N1Dot5.
func enumGoName(v string) string {
	switch {
	case v == "":
		return "Empty"
	case strings.HasPrefix(v, "-"):
		rest := GoName(v[1:])
		if len(rest) > 1 && rest[0] == 'N' && rest[1] >= '0' && rest[1] <= '9' {
			rest = rest[1:]
		}
		return "Minus" + rest
	}
	return GoName(strings.ReplaceAll(v, ".", " dot "))
}

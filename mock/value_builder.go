package mock

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// valueBuilder builds a value from a schema. The static generator (rnd == nil) is
// deterministic: the first enum member, the lower bound, every declared
// property down to a depth; the dynamic one draws from rnd.
type valueBuilder struct {
	rnd *rand.Rand
	// response: leave writeOnly members out; request: leave readOnly out.
	response bool
	// form: the value goes into a form body, where an empty list cannot be
	// written (it would read as a missing member), so lists get one item.
	form  bool
	stack []*openapi3.Schema
}

// Bounds of the generated values: recursion, nesting, sizes.
const (
	maxDepth      = 12 // hard stop: deeper values are the schema's smallest
	fullDepth     = 4  // optional members are filled down to this depth
	maxRepeats    = 2  // a schema met this often on the way down is not entered again
	maxArrayItems = 3
)

func (g *valueBuilder) value(ref *openapi3.SchemaRef) any {
	if ref == nil || ref.Value == nil {
		return "value"
	}
	s := ref.Value
	repeats := 0
	for _, p := range g.stack {
		if p == s {
			repeats++
		}
	}
	depth := len(g.stack)
	g.stack = append(g.stack, s)
	defer func() { g.stack = g.stack[:len(g.stack)-1] }()
	minimal := depth >= maxDepth || repeats >= maxRepeats
	if minimal && (s.Nullable || s.Type.IncludesNull()) {
		return nil
	}
	return g.schema(s, depth, minimal)
}

func (g *valueBuilder) schema(s *openapi3.Schema, depth int, minimal bool) any {
	if s.Const != nil {
		return s.Const
	}
	if len(s.Enum) > 0 {
		return g.enum(s.Enum)
	}
	if ex := g.example(s); ex != nil {
		return ex
	}
	if len(s.AllOf) > 0 {
		return g.allOf(s, depth, minimal)
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		variants := s.OneOf
		if len(variants) == 0 {
			variants = s.AnyOf
		}
		return g.union(s, variants)
	}
	switch {
	case s.Type.Is("object") || (s.Type.IsEmpty() && (len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil)):
		return g.object(s, depth, minimal)
	case s.Type.Permits("array") && !s.Type.IsEmpty(), s.Type.IsEmpty() && s.Items != nil:
		// An untyped schema with items (OpenAI's modalities) means a list:
		// a string would validate too, but no client types it so.
		return g.array(s, minimal)
	case s.Type.Permits("string") && !s.Type.IsEmpty():
		return g.str(s)
	case s.Type.Permits("integer") && !s.Type.IsEmpty():
		return g.number(s, true)
	case s.Type.Permits("number") && !s.Type.IsEmpty():
		return g.number(s, false)
	case s.Type.Permits("boolean") && !s.Type.IsEmpty():
		if g.rnd != nil {
			return g.rnd.IntN(2) == 0
		}
		return true
	case s.Type.Permits("object") && !s.Type.IsEmpty():
		return g.object(s, depth, minimal)
	case s.Type.Is("null"):
		return nil
	}
	// Untyped: a string fits every untyped schema without other keywords.
	return "value"
}

func (g *valueBuilder) enum(values []any) any {
	var nonNull []any
	for _, v := range values {
		if v != nil {
			nonNull = append(nonNull, v)
		}
	}
	if len(nonNull) == 0 {
		return nil
	}
	if g.rnd != nil {
		return nonNull[g.rnd.IntN(len(nonNull))]
	}
	return nonNull[0]
}

// example is the schema's own example (or first 3.1 example) when it
// validates against the schema; a broken example is ignored.
func (g *valueBuilder) example(s *openapi3.Schema) any {
	if g.rnd != nil {
		return nil
	}
	cands := s.Examples
	if s.Example != nil {
		cands = append([]any{s.Example}, cands...)
	}
	for _, ex := range cands {
		if ex != nil && s.VisitJSON(ex, g.visitOpts()...) == nil {
			return ex
		}
	}
	return nil
}

func (g *valueBuilder) visitOpts() []openapi3.SchemaValidationOption {
	if g.response {
		return []openapi3.SchemaValidationOption{openapi3.VisitAsResponse()}
	}
	return []openapi3.SchemaValidationOption{openapi3.VisitAsRequest()}
}

// allOf merges the members' objects; for a scalar, the first typed member
// wins and the whole schema's keywords still apply.
func (g *valueBuilder) allOf(s *openapi3.Schema, depth int, minimal bool) any {
	own := *s
	own.AllOf = nil
	members := append([]*openapi3.SchemaRef{{Value: &own}}, s.AllOf...)
	m := merger{merged: map[string]any{}, declared: map[string]bool{}}
	for _, ref := range members {
		if ref == nil || ref.Value == nil {
			continue
		}
		if ref.Value == &own && own.Type.IsEmpty() && len(own.Properties) == 0 && len(own.OneOf) == 0 && len(own.AnyOf) == 0 {
			continue
		}
		m.add(ref.Value, g.value(ref), ref.Value == &own)
	}
	if m.isObject {
		g.fillPlaceholders(m, members)
		return m.merged
	}
	if m.scalar != nil {
		return m.scalar
	}
	if m.ownScalar != nil {
		return m.ownScalar
	}
	return "value"
}

// merger folds the values of an allOf's members.
type merger struct {
	merged    map[string]any
	declared  map[string]bool // the member that gave merged[k] declares k
	isObject  bool
	scalar    any // the first member's scalar
	ownScalar any // the scalar of the allOf's holder itself
}

func (m *merger) add(member *openapi3.Schema, v any, own bool) {
	if obj, ok := v.(map[string]any); ok {
		m.isObject = true
		// A member that only lists a name in required gives a
		// placeholder; the member that declares the property wins.
		for k, x := range obj {
			_, isDeclared := member.Properties[k]
			if _, dup := m.merged[k]; !dup || isDeclared && !m.declared[k] {
				m.merged[k] = x
				m.declared[k] = isDeclared
			}
		}
	} else if own && v != nil && v != "value" {
		// The holder's own type ({type: string, allOf: [$ref]}) is the
		// fallback: a member's constants narrow it (Discord's join
		// request action).
		m.ownScalar = v
	} else if m.scalar == nil && v != nil && v != "value" {
		m.scalar = v
	}
}

// fillPlaceholders builds a placeholder whose property a member declares
// (but left out, being optional there) from that declaration, in name
// order so that dynamic values follow the seed.
func (g *valueBuilder) fillPlaceholders(m merger, members []*openapi3.SchemaRef) {
	for _, k := range sortedKeys(m.merged) {
		if m.declared[k] {
			continue
		}
		for _, ref := range members {
			if ref != nil && ref.Value != nil && ref.Value.Properties[k] != nil {
				m.merged[k] = g.value(ref.Value.Properties[k])
				break
			}
		}
	}
}

// union picks the first variant whose value validates against the whole
// schema (exactly one variant for oneOf), else the first variant's value.
func (g *valueBuilder) union(s *openapi3.Schema, variants openapi3.SchemaRefs) any {
	order := make([]int, len(variants))
	for i := range order {
		order[i] = i
	}
	if g.rnd != nil {
		g.rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	var first any
	objectParent := len(s.Properties) > 0 || s.Type.Is("object")
	for n, i := range order {
		v := g.value(variants[i])
		if objectParent {
			v = g.withParent(s, variants[i], v)
		}
		if d := s.Discriminator; d != nil && d.PropertyName != "" {
			if obj, ok := v.(map[string]any); ok {
				// The mapping's name, unless the variant pins the property
				// to another value itself.
				if tag := discriminatorValue(d, variants[i]); tag != "" && obj[d.PropertyName] != tag {
					old, had := obj[d.PropertyName]
					obj[d.PropertyName] = tag
					if variants[i].Value.VisitJSON(obj, g.visitOpts()...) != nil && had {
						obj[d.PropertyName] = old
					}
				}
			}
		}
		if n == 0 {
			first = v
		}
		if s.VisitJSON(v, g.visitOpts()...) == nil {
			return v
		}
	}
	if g.rnd != nil {
		// No random variant fits: fall back on the static values.
		rnd := g.rnd
		g.rnd = nil
		v := g.union(s, variants)
		g.rnd = rnd
		return v
	}
	return first
}

// withParent combines a variant's value with the members the parent object
// declares (oneOf: [{required: [a]}, {required: [b]}] beside properties a
// and b): the parent's values, the variant's own declarations winning, and
// every member the variant requires.
func (g *valueBuilder) withParent(s *openapi3.Schema, variant *openapi3.SchemaRef, v any) any {
	base := *s
	base.OneOf, base.AnyOf, base.Discriminator = nil, nil, nil
	obj, ok := g.schema(&base, len(g.stack), false).(map[string]any)
	if !ok {
		return v
	}
	var vs *openapi3.Schema
	if variant != nil {
		vs = variant.Value
	}
	if vobj, ok := v.(map[string]any); ok {
		for k, x := range vobj {
			if vs != nil && vs.Properties[k] != nil {
				obj[k] = x
			} else if _, has := obj[k]; !has && s.Properties[k] == nil {
				obj[k] = x
			}
		}
	} else if v != "value" && v != nil {
		return v // a scalar variant: the parent's members do not apply
	}
	if vs != nil {
		for _, r := range vs.Required {
			if _, has := obj[r]; has {
				continue
			}
			if p := s.Properties[r]; p != nil {
				obj[r] = g.value(p)
			} else {
				obj[r] = "value"
			}
		}
	}
	return obj
}

// discriminatorValue is the mapping key that names a variant, else the
// last element of its reference (the implicit mapping).
func discriminatorValue(d *openapi3.Discriminator, variant *openapi3.SchemaRef) string {
	if variant.Ref == "" {
		return ""
	}
	for _, k := range sortedKeys(d.Mapping) {
		m := d.Mapping[k]
		if m.Ref == variant.Ref || (m.Value != nil && m.Value == variant.Value) {
			return k
		}
	}
	return variant.Ref[strings.LastIndexByte(variant.Ref, '/')+1:]
}

func (g *valueBuilder) object(s *openapi3.Schema, depth int, minimal bool) any {
	out := map[string]any{}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		if p == nil || p.Value == nil || !g.wantsMember(s, p.Value, required[name], len(out), depth, minimal) {
			continue
		}
		out[name] = g.value(p)
	}
	g.notRequired(s, out, required)
	// A required member without a declared schema still has to be there.
	for _, r := range s.Required {
		if _, ok := out[r]; !ok && s.Properties[r] == nil {
			out[r] = g.additional(s)
		}
	}
	extra := 0
	if s.AdditionalProperties.Schema != nil && len(s.Properties) == 0 && !minimal && depth < fullDepth {
		extra = 1
	}
	if int(s.MinProps) > len(out) {
		extra = int(s.MinProps) - len(out)
	}
	for i := 0; i < extra && i < 16; i++ {
		out[fmt.Sprintf("key%d", i+1)] = g.additional(s)
	}
	return out
}

// wantsMember says whether a property p of s goes into the value, given
// whether it is required and how many members are already in.
func (g *valueBuilder) wantsMember(s, p *openapi3.Schema, required bool, have, depth int, minimal bool) bool {
	// readOnly members are never sent, writeOnly ones never answered,
	// even when listed as required (OpenAPI 3.0 section 4.7.25.4).
	if g.response && p.WriteOnly || !g.response && p.ReadOnly {
		return false
	}
	if required {
		return true
	}
	// In a form an empty object is not written at all, so the first
	// optional member stands in for it.
	keep := g.form && have == 0 && len(s.Required) == 0 && depth < maxDepth
	if (minimal || depth >= fullDepth) && !keep {
		return false
	}
	return g.rnd == nil || g.rnd.IntN(2) != 0
}

// additional is a value for a member s does not declare.
func (g *valueBuilder) additional(s *openapi3.Schema) any {
	if ap := s.AdditionalProperties.Schema; ap != nil {
		return g.value(ap)
	}
	return "value"
}

func (g *valueBuilder) array(s *openapi3.Schema, minimal bool) any {
	n := int(min(s.MinItems, 64))
	if !minimal && n == 0 {
		n = 1
		if g.rnd != nil {
			n = g.rnd.IntN(maxArrayItems + 1)
		}
	}
	if g.form && n == 0 && len(g.stack) < maxDepth {
		n = 1
	}
	if s.MaxItems != nil && uint64(n) > *s.MaxItems {
		n = int(*s.MaxItems)
	}
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		item := s.Items
		if i < len(s.PrefixItems) {
			item = s.PrefixItems[i]
		}
		v := g.value(item)
		if s.UniqueItems {
			// Draw again (dynamic), alter (static), or leave the item out
			// when the array may be shorter.
			for try := 0; g.rnd != nil && try < 8 && contains(out, v); try++ {
				v = g.value(item)
			}
			if contains(out, v) {
				v = g.distinct(v, i, item)
			}
			// Static values repeat by design: draw this one from a source
			// seeded by its index (repeatable, and fit for patterns).
			for try := 0; g.rnd == nil && try < 4 && contains(out, v); try++ {
				alt := &valueBuilder{rnd: rand.New(rand.NewPCG(uint64(i), uint64(try))), response: g.response, stack: g.stack}
				v = alt.value(item)
			}
			if contains(out, v) && uint64(len(out)) >= s.MinItems {
				continue
			}
		}
		out = append(out, v)
	}
	return out
}

func contains(have []any, v any) bool {
	for _, h := range have {
		if fmt.Sprint(h) == fmt.Sprint(v) {
			return true
		}
	}
	return false
}

// distinct alters a scalar so that a uniqueItems array stays unique, when
// the altered value still fits the item schema; else it keeps v.
func (g *valueBuilder) distinct(v any, i int, items *openapi3.SchemaRef) any {
	var alt any
	switch x := v.(type) {
	case string:
		alt = x + fmt.Sprint(i)
	case float64:
		alt = x + float64(i)
	case int64:
		alt = x + int64(i)
	default:
		return v
	}
	if items == nil || items.Value == nil || items.Value.VisitJSON(alt, g.visitOpts()...) == nil {
		return alt
	}
	return v
}

func (g *valueBuilder) str(s *openapi3.Schema) any {
	v := g.formatted(s.Format)
	if s.Pattern != "" {
		if p, ok := fromPattern(s.Pattern, g.rnd, 1); ok {
			v = p
			// Too short: stretch the pattern's open repetitions.
			if uint64(utf8.RuneCountInString(p)) < s.MinLength {
				if q, ok := fromPattern(s.Pattern, g.rnd, int(min(s.MinLength, 1<<12))); ok {
					v = q
				}
			}
		}
	}
	n := utf8.RuneCountInString(v)
	if uint64(n) < s.MinLength {
		v += strings.Repeat("x", int(min(s.MinLength, 1<<16))-n)
	}
	if s.MaxLength != nil && uint64(utf8.RuneCountInString(v)) > *s.MaxLength {
		v = string([]rune(v)[:*s.MaxLength])
	}
	return v
}

// fixedFormats are the static strings of the formats that have one.
var fixedFormats = map[string]string{
	"date-time": "2024-01-02T03:04:05Z", "date": "2024-01-02", "time": "03:04:05Z",
	"email": "user@example.com", "uri": "https://example.com/resource", "url": "https://example.com/resource",
	"uri-reference": "https://example.com/resource", "iri": "https://example.com/resource",
	"hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "duration": "P1D",
	// binary inside JSON has no other agreed text form; base64 is a valid
	// string and what Go's []byte reads.
	"byte": base64.StdEncoding.EncodeToString([]byte("mock")), "binary": base64.StdEncoding.EncodeToString([]byte("mock")),
}

// formatted is a string of the format: a fixed one, a drawn uuid or word
// in dynamic mode, "string" for any other format.
func (g *valueBuilder) formatted(format string) string {
	if v, ok := fixedFormats[format]; ok {
		return v
	}
	switch {
	case format == "uuid" && g.rnd != nil:
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.rnd.Uint32(), g.rnd.IntN(1<<16), g.rnd.IntN(1<<12), g.rnd.IntN(1<<12), g.rnd.Int64N(1<<48))
	case format == "uuid":
		return "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	case g.rnd != nil:
		return randWord(g.rnd)
	}
	return "string"
}

func randWord(r *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 4+r.IntN(8))
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

func (g *valueBuilder) number(s *openapi3.Schema, integer bool) any {
	lo, hi := numberBounds(s, integer)
	v := 1.0
	switch {
	case g.rnd != nil && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && hi > lo:
		v = lo + g.rnd.Float64()*(hi-lo)
	case g.rnd != nil:
		v = float64(g.rnd.IntN(1000))
		if !math.IsInf(lo, 0) {
			v += lo
		}
	}
	v = min(max(v, lo), hi)
	if integer {
		v = math.Ceil(v)
		if v > hi {
			v = math.Floor(hi)
		}
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
		if v > hi {
			v = math.Floor(hi / *m) * *m
		}
	}
	if integer {
		return int64(v)
	}
	return v
}

// numberBounds are the least and greatest values s allows, exclusive
// bounds moved inwards by a step (1 for an integer, 0.5 otherwise).
func numberBounds(s *openapi3.Schema, integer bool) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if s.Min != nil {
		lo = *s.Min
	}
	if s.Max != nil {
		hi = *s.Max
	}
	step := 1.0
	if !integer {
		step = 0.5
	}
	if s.ExclusiveMin.Value != nil {
		lo = math.Max(lo, *s.ExclusiveMin.Value+step)
	} else if s.ExclusiveMin.IsTrue() && s.Min != nil {
		lo += step
	}
	if s.ExclusiveMax.Value != nil {
		hi = math.Min(hi, *s.ExclusiveMax.Value-step)
	} else if s.ExclusiveMax.IsTrue() && s.Max != nil {
		hi -= step
	}
	return lo, hi
}

// fromPattern builds a string that matches a regular expression by walking
// its syntax tree: the first branch of an alternation, the first member of
// a class, the least repetition (at least one). ok is false for patterns it
// cannot satisfy this way (the caller validates the result anyway).
//
// reps is how often an open repetition (*, +, {n,}) repeats at most.
func fromPattern(pattern string, rnd *rand.Rand, reps int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !walkPattern(re.Simplify(), &b, rnd, reps, 0) {
		return "", false
	}
	return b.String(), b.Len() <= 1<<12
}

// walkPattern writes to b a string that re matches; see fromPattern.
func walkPattern(re *syntax.Regexp, b *strings.Builder, rnd *rand.Rand, reps, depth int) bool {
	if depth > 64 || b.Len() > 1<<12 {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		b.WriteRune(classRune(re.Rune, rnd))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpQuest:
	case syntax.OpCapture:
		return walkPattern(re.Sub[0], b, rnd, reps, depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		return walkAll(slices.Repeat(re.Sub[:1], repetitions(re, reps)), b, rnd, reps, depth)
	case syntax.OpConcat:
		return walkAll(re.Sub, b, rnd, reps, depth)
	case syntax.OpAlternate:
		i := 0
		if rnd != nil {
			i = rnd.IntN(len(re.Sub))
		}
		return walkPattern(re.Sub[i], b, rnd, reps, depth+1)
	default:
		return false
	}
	return true
}

// walkAll walks each of subs in turn, one level down.
func walkAll(subs []*syntax.Regexp, b *strings.Builder, rnd *rand.Rand, reps, depth int) bool {
	for _, sub := range subs {
		if !walkPattern(sub, b, rnd, reps, depth+1) {
			return false
		}
	}
	return true
}

// classRune picks a rune of a character class (ranges as lo, hi pairs): a
// letter or digit inside the first range when there is one, a drawn one in
// dynamic mode.
func classRune(ranges []rune, rnd *rand.Rand) rune {
	lo, hi := ranges[0], ranges[1]
	if rnd != nil {
		pair := rnd.IntN(len(ranges) / 2)
		lo, hi = ranges[2*pair], ranges[2*pair+1]
		return lo + rune(rnd.IntN(int(min(hi-lo, 25))+1))
	}
	for _, c := range []rune{'a', 'A', '0'} {
		if c >= lo && c <= hi {
			return c
		}
	}
	return lo
}

// repetitions is how often a *, + or {n,m} repeats its operand: the least
// it allows, or reps when that is allowed and more (at least one for an
// open repetition, none for * when reps is at most 1).
func repetitions(re *syntax.Regexp, reps int) int {
	if re.Op != syntax.OpRepeat {
		if re.Op == syntax.OpStar && reps <= 1 {
			return 0
		}
		return max(reps, 1)
	}
	n := max(re.Min, 0)
	if reps > n && (re.Max < 0 || re.Max >= reps) {
		n = reps
	}
	return n
}

// notRequired honours `not: {required: [a, b]}` ("not both", OpenAI's image
// references): when every listed member was filled, the last optional one
// is left out.
func (g *valueBuilder) notRequired(s *openapi3.Schema, out map[string]any, required map[string]bool) {
	if s.Not == nil || s.Not.Value == nil || len(s.Not.Value.Required) == 0 {
		return
	}
	drop := ""
	for _, name := range s.Not.Value.Required {
		if _, ok := out[name]; !ok {
			return
		}
		if !required[name] {
			drop = name
		}
	}
	delete(out, drop)
}

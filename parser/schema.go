package parser

import (
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// schemaBuilder converts kin-openapi schemas into IR schemas. Every $ref
// becomes a KindRef use of one declaration per target (keyed by file and
// pointer), and declarations are filled from a queue rather than by
// recursion, so recursive types terminate.
type schemaBuilder struct {
	b      *builder
	byKey  map[string]*ir.Schema
	names  *namer
	decls  []*ir.Schema
	queue  []pendingDecl
	active map[*openapi3.Schema]bool
	depth  int
	// inl deduplicates and finally names the inline declarations.
	inl *inlines
	// tmpNames names inline declarations until finish gives them their
	// final names.
	tmpNames *namer
}

type pendingDecl struct {
	decl  *ir.Schema
	value *openapi3.Schema
	at    loc
}

// maxSchemaDepth bounds inline nesting (refs do not count: they are not
// descended into); deeper inline schemas become untyped values.
const maxSchemaDepth = 64

func newSchemaBuilder(b *builder) *schemaBuilder {
	// Client is the generated client type; a schema may not take its name.
	return &schemaBuilder{b: b, byKey: map[string]*ir.Schema{}, names: newNamer("Client"), active: map[*openapi3.Schema]bool{},
		inl: newInlines(), tmpNames: newNamer()}
}

func declKey(file, frag string) string { return file + "#" + frag }

// componentsAt is where component schemas are written: components.schemas,
// or definitions in a Swagger 2.0 document.
func (sb *schemaBuilder) componentsAt() loc {
	if mapGet(sb.b.rootLoc.node, "swagger") != nil {
		return sb.b.rootLoc.at("definitions")
	}
	return sb.b.rootLoc.at("components", "schemas")
}

// declareComponents names every component schema first (sorted by name), so
// components keep their own names and inline types take suffixes on a clash.
func (sb *schemaBuilder) declareComponents() {
	if sb.b.doc.Components == nil {
		return
	}
	at := sb.componentsAt()
	m := sb.b.doc.Components.Schemas
	for _, name := range sortedMapKeys(m) {
		var v *openapi3.Schema
		if m[name] != nil {
			v = m[name].Value
		}
		decl := &ir.Schema{Name: name, GoName: sb.names.unique(shortName(GoName(name), maxIdentLen-enumSuffixLen(v)))}
		sb.decls = append(sb.decls, decl)
		sb.byKey[declKey(sb.b.l.root.key, jsonpointer.Join("/components/schemas", name))] = decl
		cat := at.at(name)
		target := sb.b.follow(cat)
		if tk := declKey(target.file, target.pointer); target.node != cat.node && sb.byKey[tk] == nil {
			// An alias component ($ref to another file) names its target.
			sb.byKey[tk] = decl
		}
		sb.queue = append(sb.queue, pendingDecl{decl, v, target})
	}
	sb.drain()
}

// drain fills queued declarations; filling may queue more.
func (sb *schemaBuilder) drain() {
	for len(sb.queue) > 0 {
		p := sb.queue[0]
		sb.queue = sb.queue[1:]
		name, goName := p.decl.Name, p.decl.GoName
		var s *ir.Schema
		if p.value == nil {
			s = sb.any(p.at)
		} else {
			s = sb.convert(p.value, p.at, rootHint(goName))
		}
		*p.decl = *s
		p.decl.Name, p.decl.GoName = name, goName
	}
}

// finish fills what is left, names the inline declarations, breaks alias
// cycles, and returns the declarations sorted by GoName.
func (sb *schemaBuilder) finish() []*ir.Schema {
	sb.drain()
	taken := newNamer("Client")
	for _, d := range sb.decls {
		if sb.inl.bySch[d] == nil {
			taken.used[d.GoName] = true
		}
	}
	sb.decls = append(sb.decls, sb.inl.name(taken, sb.reportNumbered)...)
	for _, d := range sb.decls {
		sb.breakAliasCycle(d)
	}
	sort.SliceStable(sb.decls, func(i, j int) bool { return sb.decls[i].GoName < sb.decls[j].GoName })
	return sb.decls
}

// breakAliasCycle turns a declaration that only aliases itself (A is B, B is
// A, through refs or one-member allOfs) into an untyped value: it describes
// nothing, and Deref would never return.
func (sb *schemaBuilder) breakAliasCycle(d *ir.Schema) {
	seen := map[*ir.Schema]bool{}
	for s := d; s != nil && s.Kind == ir.KindRef; s = s.Ref {
		if seen[s] {
			sb.b.l.sink.warnf(loc{d.Source.File, d.Source.Pointer, nil}, "", ruleUnsupportedSchema,
				"schema %s only refers to itself; it is treated as an untyped value", d.Name)
			d.Kind, d.Ref = ir.KindAny, nil
			return
		}
		seen[s] = true
	}
}

func (sb *schemaBuilder) any(at loc) *ir.Schema {
	return &ir.Schema{Kind: ir.KindAny, Source: sb.b.l.sink.source(at)}
}

// use converts a schema found at a use site: a $ref becomes a KindRef use of
// its declaration; an inline schema that needs a Go type of its own (object,
// enum, union) becomes a declaration (shared by every inline schema of the
// same shape, named when the document is read: finish) and a use of it.
func (sb *schemaBuilder) use(sr *openapi3.SchemaRef, at loc, hint string) *ir.Schema {
	return sb.useHint(sr, at, opHint(hint))
}

// useHint is use for a schema nested at hint.
func (sb *schemaBuilder) useHint(sr *openapi3.SchemaRef, at loc, hint nameHint) *ir.Schema {
	switch {
	case sr == nil:
		return sb.any(at)
	case sr.Ref != "":
		return sb.refUse(sr, at)
	case sr.Value == nil:
		return sb.any(at)
	}
	s := sb.convert(sr.Value, at, hint)
	if !needsName(s) {
		return s
	}
	s.Name = hint.String()
	use := &ir.Schema{Kind: ir.KindRef, Nullable: s.Nullable, Source: s.Source}
	decl, fresh := sb.inl.intern(s, hint, use)
	if fresh {
		s.GoName, s.Inline = sb.tmpNames.unique(goNameOf(s.Name)), true
		sb.decls = append(sb.decls, s)
	}
	use.Ref = decl
	return use
}

// needsName reports whether a converted inline schema needs a named Go type.
func needsName(s *ir.Schema) bool {
	return s.GoName == "" && (s.Kind == ir.KindObject || s.Kind == ir.KindEnum || s.Kind == ir.KindUnion)
}

// refUse returns a use of the declaration a $ref names, declaring it (named
// after the last pointer token, or the file) on first sight.
func (sb *schemaBuilder) refUse(sr *openapi3.SchemaRef, at loc) *ir.Schema {
	file, frag := splitRef(sr.Ref)
	key := declKey(resolveFile(at.file, file), frag)
	decl := sb.byKey[key]
	if decl == nil {
		target := sb.b.follow(at)
		tk := declKey(target.file, target.pointer)
		if decl = sb.byKey[tk]; decl == nil {
			name := refName(file, frag)
			decl = &ir.Schema{Name: name, GoName: sb.names.unique(shortName(GoName(name), maxIdentLen-enumSuffixLen(sr.Value)))}
			sb.decls = append(sb.decls, decl)
			sb.byKey[tk] = decl
			sb.queue = append(sb.queue, pendingDecl{decl, sr.Value, target})
		}
		sb.byKey[key] = decl
	}
	use := &ir.Schema{Kind: ir.KindRef, Ref: decl, Source: sb.b.l.sink.source(at)}
	if since31(sb.b.api.OpenAPI) {
		refSiblings(use, at.node)
	}
	return use
}

// since31 reports whether a document's version is 3.1 or later: 3.2 keeps
// 3.1's JSON Schema, so it is read the same way.
func since31(version string) bool {
	return strings.HasPrefix(version, "3.") && !strings.HasPrefix(version, "3.0")
}

// refSiblings applies the annotations OpenAPI 3.1 lets a $ref carry beside
// it (description, deprecated, readOnly, writeOnly, and a null type) to the
// use; in 3.0 they are ignored, as the specification says.
func refSiblings(use *ir.Schema, n *yaml.Node) {
	if d := mapGet(n, "description"); d != nil && d.Kind == yaml.ScalarNode {
		use.Description = d.Value
	}
	use.Deprecated = scalarString(mapGet(n, "deprecated")) == "true"
	use.ReadOnly = scalarString(mapGet(n, "readOnly")) == "true"
	use.WriteOnly = scalarString(mapGet(n, "writeOnly")) == "true"
}

// refName names the target of a $ref outside components.schemas: the last
// pointer token, or the file's base name without extension.
func refName(file, frag string) string {
	toks := strings.Split(strings.Trim(frag, "/"), "/")
	if last := jsonpointer.Unescape(toks[len(toks)-1]); last != "" {
		return last
	}
	base := path.Base(file)
	return strings.TrimSuffix(base, path.Ext(base))
}

// convert turns one schema into an IR schema (never a declaration itself:
// callers name it when needed).
func (sb *schemaBuilder) convert(v *openapi3.Schema, at loc, hint nameHint) *ir.Schema {
	if sb.active[v] || sb.depth >= maxSchemaDepth {
		// Only reachable through YAML aliases or absurd nesting: refs are
		// never descended into.
		return sb.any(at)
	}
	sb.active[v] = true
	sb.depth++
	defer func() { delete(sb.active, v); sb.depth-- }()
	s := &ir.Schema{
		Format: v.Format, Nullable: v.Nullable || v.Type.Includes("null"), ReadOnly: v.ReadOnly,
		WriteOnly: v.WriteOnly, Deprecated: v.Deprecated, Title: v.Title, Description: v.Description,
		Source: sb.b.l.sink.source(at),
	}
	switch {
	case len(v.AllOf) > 0:
		return sb.allOf(s, v, at, hint)
	case len(v.OneOf) > 0 || len(v.AnyOf) > 0:
		return sb.union(s, v, at, hint)
	case len(v.Enum) > 0 || v.Const != nil:
		return sb.enum(s, v, at, hint)
	}
	return sb.typed(s, v, at, hint)
}

// typed converts a schema by its type keyword (or the keywords that imply
// one). A 3.1 type list with more than one non-null type becomes the oneOf
// it means (typeListUnion).
func (sb *schemaBuilder) typed(s *ir.Schema, v *openapi3.Schema, at loc, hint nameHint) *ir.Schema {
	var types []string
	for _, t := range v.Type.Slice() {
		if t != "null" {
			types = append(types, t)
		}
	}
	if len(types) > 1 {
		return sb.union(s, typeListUnion(v, types), at, hint)
	}
	if len(types) == 0 {
		switch {
		case len(v.Properties) > 0 || v.AdditionalProperties.Schema != nil || v.AdditionalProperties.Has != nil:
			types = []string{"object"}
		case v.Items != nil:
			types = []string{"array"}
		}
	}
	if len(types) != 1 {
		s.Kind = ir.KindAny
		return s
	}
	switch types[0] {
	case "string":
		s.Kind = ir.KindString
	case "integer":
		s.Kind = ir.KindInteger
	case "number":
		s.Kind = ir.KindNumber
	case "boolean":
		s.Kind = ir.KindBool
	case "array":
		s.Kind = ir.KindArray
		s.Items = sb.useHint(v.Items, at.at("items"), hint.glue("Item"))
	case "object":
		sb.object(s, v, at, hint)
	default:
		s.Kind = ir.KindAny
	}
	return s
}

// object fills an object or map schema.
func (sb *schemaBuilder) object(s *ir.Schema, v *openapi3.Schema, at loc, hint nameHint) {
	ap := v.AdditionalProperties
	if ap.Schema != nil {
		s.AdditionalProperties = sb.useHint(ap.Schema, at.at("additionalProperties"), hint.glue("Value"))
	} else if ap.Has != nil && *ap.Has && len(v.Properties) > 0 {
		s.AdditionalProperties = sb.any(at.at("additionalProperties"))
	}
	if len(v.Properties) == 0 {
		s.Kind = ir.KindMap
		switch {
		case s.AdditionalProperties != nil:
		case ap.Has != nil && !*ap.Has:
			s.Kind = ir.KindObject // an object that must stay empty
		default:
			s.AdditionalProperties = sb.any(at) // a free-form object
		}
		return
	}
	s.Kind = ir.KindObject
	names := newNamer()
	for _, name := range sortedMapKeys(v.Properties) {
		s.Properties = append(s.Properties, sb.property(v.Properties[name], name, contains(v.Required, name), at.at("properties", name), hint, names))
	}
	s.Properties = append(s.Properties, requiredOnly(v.Required, v.Properties, at, sb, names)...)
	sort.SliceStable(s.Properties, func(i, j int) bool { return s.Properties[i].Name < s.Properties[j].Name })
	sb.untaggable(s, at)
}

// untaggable turns an object with a member name that encoding/json cannot
// carry in a struct tag (a quote, a backslash, a comma, an apostrophe, a
// backquote, the empty name) into a map of JSON values, with a warning:
// encoding/json would silently use the Go field name instead. Such names are
// rare, and a map keeps the output small where a custom MarshalJSON and
// UnmarshalJSON per model would not.
func (sb *schemaBuilder) untaggable(s *ir.Schema, at loc) {
	for _, p := range s.Properties {
		if !validTagName(p.Name) {
			sb.b.l.sink.warnf(at, "", ruleUnsupportedSchema,
				"member name %q cannot be a Go struct tag; the object is a map of JSON values", p.Name)
			s.Kind, s.Properties, s.AdditionalProperties = ir.KindMap, nil, sb.any(at)
			return
		}
	}
}

// validTagName mirrors encoding/json's isValidTag: letters, digits and
// this punctuation only.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// requiredOnly gives each member that required lists and properties does
// not declare a field of any JSON value (json.RawMessage), so a valid
// request can still be built: without it no value of the type satisfies the
// document. Its shape is unknown, so nothing narrower is honest.
func requiredOnly(required []string, props openapi3.Schemas, at loc, sb *schemaBuilder, names *namer) []*ir.Property {
	var out []*ir.Property
	seen := map[string]bool{}
	for _, name := range required {
		if _, ok := props[name]; ok || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, &ir.Property{Name: name, GoName: names.unique(GoName(name)), Required: true, Type: sb.any(at.at("required"))})
	}
	return out
}

func (sb *schemaBuilder) property(pr *openapi3.SchemaRef, name string, required bool, at loc, hint nameHint, names *namer) *ir.Property {
	g := GoName(name)
	p := &ir.Property{Name: name, GoName: names.unique(g), Required: required}
	p.Type = sb.useHint(pr, at, hint.member(g))
	if pr != nil && pr.Value != nil {
		p.Description, p.Deprecated = pr.Value.Description, pr.Value.Deprecated
		p.ReadOnly = pr.Value.ReadOnly
	}
	p.ReadOnly = p.ReadOnly || p.Type.ReadOnly
	return p
}

// typeListUnion rewrites a 3.1 type list of several non-null types
// ({type: [string, integer]}) as the oneOf it means: one variant per type, in
// document order, each keeping the schema's other keywords. JSON types are
// disjoint (but for integer within number), so the union decodes by the JSON
// type it meets.
func typeListUnion(v *openapi3.Schema, types []string) *openapi3.Schema {
	u := &openapi3.Schema{}
	for _, t := range types {
		variant := *v
		variant.Type = &openapi3.Types{t}
		u.OneOf = append(u.OneOf, &openapi3.SchemaRef{Value: &variant})
	}
	return u
}

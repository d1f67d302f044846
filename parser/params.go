package parser

import (
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// paramRef is a declared parameter with its location.
type paramRef struct {
	p  *openapi3.Parameter
	at loc
}

// mergeParams returns the path item's parameters overridden by the
// operation's own (same name and location), each once.
func (b *builder) mergeParams(r *rawOp, id string) []*paramRef {
	var out []*paramRef
	index := map[string]int{}
	add := func(list openapi3.Parameters, owner loc, override bool) {
		for i, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			p := pr.Value
			at := b.paramAt(owner, i, p)
			key := p.In + "\x00" + p.Name
			if j, seen := index[key]; seen {
				if override {
					out[j] = &paramRef{p, at}
				} else {
					b.l.sink.warnf(at, id, ruleDuplicateParam, "%s parameter %q is declared twice; the first is used", p.In, p.Name)
				}
				continue
			}
			index[key] = len(out)
			out = append(out, &paramRef{p, at})
		}
	}
	add(r.item.Parameters, r.itemAt, false)
	add(r.op.Parameters, r.at, true)
	return out
}

// paramAt finds where a parameter is written: item i of the owner's list,
// or, when kin-openapi's list differs from the document's (a converted
// Swagger 2.0 body parameter is no longer a parameter), the item with the
// same name and location.
func (b *builder) paramAt(owner loc, i int, p *openapi3.Parameter) loc {
	list := owner.at("parameters")
	matches := func(at loc) bool {
		return scalarString(mapGet(at.node, "name")) == p.Name && scalarString(mapGet(at.node, "in")) == p.In
	}
	if at := b.follow(list.at(strconv.Itoa(i))); matches(at) {
		return at
	}
	if seq := unalias(list.node); seq != nil {
		for j := range seq.Content {
			if at := b.follow(list.at(strconv.Itoa(j))); matches(at) {
				return at
			}
		}
	}
	return list.at(strconv.Itoa(i))
}

// ignoredHeaders are the header parameters OpenAPI says to ignore: the
// client derives them from the body, the response it accepts, and the
// security schemes.
var ignoredHeaders = map[string]bool{"accept": true, "content-type": true, "authorization": true}

var locationOrder = map[string]int{"path": 0, "query": 1, "header": 2, "cookie": 3}

// params builds the operation's parameters in IR order: path parameters in
// template order (every template name has one: a missing declaration gets a
// required string parameter and a warning), then query, header and cookie
// parameters sorted by name.
func (b *builder) params(r *rawOp, op *ir.Operation, refs []*paramRef) []*ir.Parameter {
	tmpl := ir.PathTemplateNames(r.path)
	pos := map[string]int{}
	for i, n := range tmpl {
		pos[n] = i
	}
	var out []*ir.Parameter
	declared := map[string]bool{}
	for _, pr := range refs {
		if _, ok := locationOrder[pr.p.In]; !ok {
			b.l.sink.warnf(pr.at, op.ID, ruleUnsupportedParam, "parameter %q in %q is not an OpenAPI 3 location; ignored", pr.p.Name, pr.p.In)
			continue
		}
		if pr.p.In == "header" || pr.p.In == "cookie" {
			if d, ok := tokenProblem(b.l.sink, pr.at.at("name"), op.ID, ruleHeaderName, pr.p.In+" parameter name", pr.p.Name); !ok {
				op.Unsupported = append(op.Unsupported, d)
				continue
			}
		}
		if pr.p.In == "header" && ignoredHeaders[strings.ToLower(pr.p.Name)] {
			b.l.sink.warnf(pr.at, op.ID, ruleUnsupportedParam, "header parameter %q is ignored, as OpenAPI says (the client sets it itself)", pr.p.Name)
			continue
		}
		if pr.p.In == "path" {
			if _, ok := pos[pr.p.Name]; !ok {
				b.l.sink.warnf(pr.at, op.ID, rulePathParam, "path parameter %q does not appear in %s; ignored", pr.p.Name, r.path)
				continue
			}
			declared[pr.p.Name] = true
		}
		out = append(out, b.param(pr, op.GoName))
	}
	for _, n := range tmpl {
		if !declared[n] {
			b.l.sink.warnf(r.at, op.ID, rulePathParam, "path parameter {%s} is not declared; assuming a required string", n)
			out = append(out, &ir.Parameter{Name: n, In: ir.InPath, Style: ir.StyleSimple, Required: true,
				Type: &ir.Schema{Kind: ir.KindString}, Source: op.Source})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, c := out[i], out[j]
		if a.In != c.In {
			return locationOrder[string(a.In)] < locationOrder[string(c.In)]
		}
		if a.In == ir.InPath {
			return pos[a.Name] < pos[c.Name]
		}
		return a.Name < c.Name
	})
	nameParams(out, op.Retry)
	return out
}

// nameParams gives every parameter a GoName unique within the operation. A
// keyed operation's params struct carries the key as IdempotencyKey, so that
// name is the key header's own and nobody else's.
func nameParams(ps []*ir.Parameter, c ir.RetryContract) {
	names := newNamer()
	if c.Safety == ir.Keyed {
		names = newNamer("IdempotencyKey")
	}
	for _, p := range ps {
		if c.Safety == ir.Keyed && p.In == ir.InHeader && strings.EqualFold(p.Name, c.KeyName) {
			p.GoName = "IdempotencyKey"
			continue
		}
		p.GoName = names.unique(GoName(p.Name))
	}
}

func (b *builder) param(pr *paramRef, opGoName string) *ir.Parameter {
	p := pr.p
	out := &ir.Parameter{
		Name: p.Name, In: ir.ParamLocation(p.In), Required: p.Required || p.In == "path",
		AllowReserved: p.AllowReserved, Description: p.Description, Deprecated: p.Deprecated,
		Source: b.l.sink.source(pr.at),
	}
	out.Style = paramStyle(out.In, p.Style)
	out.Explode = out.Style == ir.StyleForm
	if p.Explode != nil {
		out.Explode = *p.Explode
	}
	// An inline type is named after the parameter, or the operation and the
	// parameter when that name is taken.
	hint := opHint(opGoName).member(GoName(p.Name))
	switch {
	case p.Schema != nil:
		out.Type = b.schemas.useHint(p.Schema, pr.at.at("schema"), hint)
	case len(p.Content) > 0:
		mt := firstMedia(p.Content)
		out.ContentType = mediaName(mt)
		out.Type = b.schemas.useHint(p.Content[mt].Schema, pr.at.at("content", mt, "schema"), hint)
	default:
		out.Type = &ir.Schema{Kind: ir.KindString}
	}
	return out
}

// firstMedia picks the media type of a parameter's content map: JSON when
// offered, else the first by name.
func firstMedia(c openapi3.Content) string {
	keys := sortedMapKeys(c)
	for _, k := range keys {
		if isJSON(mediaName(k)) {
			return k
		}
	}
	return keys[0]
}

// mediaName lower-cases a media type and drops its parameters.
func mediaName(mt string) string {
	mt, _, _ = strings.Cut(mt, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func isJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// paramStyle resolves the style of a parameter in location in: the
// location's default (the first of ir.StylesIn) when the document writes
// none. This is the one place that decides a default style: the generator
// passes the resolved style on and the runtime has no default. A style the
// location does not allow is kept as written, and generator.Check refuses it.
func paramStyle(in ir.ParamLocation, written string) ir.ParamStyle {
	if written == "" {
		if styles := ir.StylesIn(in); len(styles) > 0 {
			return styles[0]
		}
	}
	return ir.ParamStyle(written)
}

// formStyle resolves the style of a property of a form body (its encoding
// object), which takes the query styles: form when none is written.
func formStyle(written string) ir.ParamStyle {
	return paramStyle(ir.InQuery, written)
}

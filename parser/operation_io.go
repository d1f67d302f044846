package parser

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// body builds the request body; nil when the operation takes none.
func (b *builder) body(r *rawOp, op *ir.Operation) *ir.RequestBody {
	if r.op.RequestBody == nil || r.op.RequestBody.Value == nil {
		return nil
	}
	rb := r.op.RequestBody.Value
	at := b.follow(r.at.at("requestBody"))
	return &ir.RequestBody{
		Required: rb.Required, Description: rb.Description,
		Content: b.content(rb.Content, at, op.GoName+"Request"),
		Source:  b.l.sink.source(at),
	}
}

// content builds a content map sorted by media type. Media types that only
// differ in case or parameters are one entry (the first by name wins).
func (b *builder) content(c openapi3.Content, at loc, hint string) []*ir.MediaType {
	var out []*ir.MediaType
	seen := map[string]bool{}
	for _, key := range sortedMapKeys(c) {
		name := mediaName(key)
		mt := c[key]
		if mt == nil || seen[name] {
			continue
		}
		seen[name] = true
		m := &ir.MediaType{Name: name}
		if mt.Schema != nil {
			m.Schema = b.schemas.use(mt.Schema, at.at("content", key, "schema"), mediaHint(name, hint))
		}
		for _, prop := range sortedMapKeys(mt.Encoding) {
			e := mt.Encoding[prop]
			if e == nil {
				continue
			}
			enc := &ir.Encoding{Property: prop, ContentType: e.ContentType, Style: formStyle(e.Style)}
			enc.Explode = enc.Style == ir.StyleForm
			if e.Explode != nil {
				enc.Explode = *e.Explode
			}
			m.Encoding = append(m.Encoding, enc)
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// responses builds the responses sorted as the IR documents: exact codes
// ascending, then classes, then default.
func (b *builder) responses(r *rawOp, op *ir.Operation) []*ir.Response {
	if r.op.Responses == nil {
		return nil
	}
	m := r.op.Responses.Map()
	var out []*ir.Response
	for _, key := range sortedMapKeys(m) {
		rr := m[key]
		if rr == nil || rr.Value == nil {
			continue
		}
		at := b.follow(r.at.at("responses", key))
		resp, ok := parseStatusKey(key)
		if !ok {
			b.l.sink.warnf(at, op.ID, ruleBadResponse, "response key %q is not a status code, a class such as 4XX, or default; ignored", key)
			continue
		}
		resp.Source = b.l.sink.source(at)
		if d := rr.Value.Description; d != nil {
			resp.Description = *d
		}
		hint := responseHint(op.GoName, key, resp)
		resp.Content = b.content(rr.Value.Content, at, hint)
		b.classifyResponse(rr.Value.Content, at, resp, hint)
		resp.Headers = b.headers(rr.Value.Headers, at, op)
		out = append(out, resp)
	}
	sort.SliceStable(out, func(i, j int) bool { return responseRank(out[i]) < responseRank(out[j]) })
	return out
}

// parseStatusKey reads "201", "4XX" (any case) or "default".
func parseStatusKey(key string) (*ir.Response, bool) {
	switch {
	case key == "default":
		return &ir.Response{Default: true}, true
	case len(key) == 3 && strings.EqualFold(key[1:], "XX") && key[0] >= '1' && key[0] <= '5':
		return &ir.Response{Class: int(key[0] - '0')}, true
	}
	code, err := strconv.Atoi(key)
	if err != nil || code < 100 || code > 599 {
		return nil, false
	}
	return &ir.Response{Status: code}, true
}

func responseRank(r *ir.Response) int {
	switch {
	case r.Default:
		return 10000
	case r.Class > 0:
		return 1000 + r.Class
	}
	return r.Status
}

// responseHint names an inline response body type: CreateOrderResponse for
// the success body, CreateOrder404Response, CreateOrder4XXResponse and
// CreateOrderDefaultResponse for the others.
func responseHint(opGoName, key string, r *ir.Response) string {
	switch {
	case r.IsSuccess():
		return opGoName + "Response"
	case r.Default:
		return opGoName + "DefaultResponse"
	}
	return opGoName + strings.ToUpper(key) + "Response"
}

// headers builds declared response headers, sorted by name, GoNames unique
// within the response.
func (b *builder) headers(hs openapi3.Headers, at loc, op *ir.Operation) []*ir.Header {
	var out []*ir.Header
	names := newNamer()
	for _, name := range sortedMapKeys(hs) {
		h := hs[name]
		if h == nil || h.Value == nil {
			continue
		}
		hat := b.follow(at.at("headers", name))
		if d, ok := tokenProblem(b.l.sink, at.at("headers", name), op.ID, ruleHeaderName, "response header name", name); !ok {
			op.Unsupported = append(op.Unsupported, d)
			continue
		}
		out = append(out, &ir.Header{
			Name: name, GoName: names.unique(GoName(name)), Required: h.Value.Required,
			Description: h.Value.Description, Type: b.headerType(&h.Value.Parameter, hat, op.GoName+GoName(name)),
		})
	}
	return out
}

func (b *builder) headerType(p *openapi3.Parameter, at loc, hint string) *ir.Schema {
	switch {
	case p.Schema != nil:
		return b.schemas.use(p.Schema, at.at("schema"), hint)
	case len(p.Content) > 0:
		mt := firstMedia(p.Content)
		return b.schemas.use(p.Content[mt].Schema, at.at("content", mt, "schema"), hint)
	}
	return &ir.Schema{Kind: ir.KindString}
}

// security returns the requirements in force for an operation: its own
// when it has a security field (an empty list switches security off), else
// the document's.
// A requirement naming an undeclared scheme keeps the name, and the use is
// recorded on a placeholder scheme (undeclaredScheme) that the generator
// treats as unusable: it refuses the document, or under SkipUnsupported
// drops every requirement naming it, skipping an operation left with none.
// Dropping only the name would leave a requirement with fewer schemes, or
// none, which a generated server would read as "anonymous allowed" (a typo
// must not open an endpoint), and guessing the scheme meant is worse.
func (b *builder) security(r *rawOp, id string) []ir.SecurityRequirement {
	reqs, at := b.doc.Security, b.rootLoc.at("security")
	if r.op.Security != nil {
		reqs, at = *r.op.Security, r.at.at("security")
	} else {
		id = "" // the document's requirement: reported once, not per operation
	}
	var out []ir.SecurityRequirement
	for i, req := range reqs {
		var schemes []string
		for _, name := range sortedMapKeys(req) {
			if b.doc.Components == nil || b.doc.Components.SecuritySchemes[name] == nil {
				b.undeclaredScheme(at.at(strconv.Itoa(i), name), id, name)
			}
			schemes = append(schemes, name)
		}
		out = append(out, ir.SecurityRequirement{Schemes: schemes})
	}
	return out
}

// undeclaredScheme records one use of a scheme components.securitySchemes
// does not declare: a located error in the Unsupported of a placeholder
// scheme of that name (one per name, one error per place it is named).
func (b *builder) undeclaredScheme(at loc, op, name string) {
	s := b.undeclared[name]
	if s == nil {
		s = &ir.SecurityScheme{Name: name, Source: b.l.sink.source(at)}
		if b.undeclared == nil {
			b.undeclared = map[string]*ir.SecurityScheme{}
		}
		b.undeclared[name] = s
	}
	d := b.l.sink.make(ir.SeverityError, at, op, ruleUnknownScheme, fmt.Sprintf(
		"security scheme %q is not defined in components.securitySchemes: no requirement naming it can be met (one that lost only the name would let calls in without it)", name))
	for _, seen := range s.Unsupported {
		if seen.Pointer == d.Pointer && seen.File == d.File {
			return // the document's requirement, met again by another operation
		}
	}
	s.Unsupported = append(s.Unsupported, d)
}

// withUndeclaredSchemes adds the placeholder schemes of undeclared names to
// the declared ones, named apart from them, sorted by GoName as they are.
func (b *builder) withUndeclaredSchemes(declared []*ir.SecurityScheme) []*ir.SecurityScheme {
	if len(b.undeclared) == 0 {
		return declared
	}
	names := newNamer()
	for _, s := range declared {
		names.unique(s.GoName)
	}
	out := slices.Clone(declared)
	for _, name := range sortedMapKeys(b.undeclared) {
		s := b.undeclared[name]
		s.GoName = names.unique(GoName(name))
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].GoName < out[j].GoName })
	return out
}

// securitySchemes builds components.securitySchemes sorted by GoName.
func (b *builder) securitySchemes() []*ir.SecurityScheme {
	if b.doc.Components == nil {
		return nil
	}
	var out []*ir.SecurityScheme
	names := newNamer()
	at := b.rootLoc.at("components", "securitySchemes")
	if b.api.OpenAPI == "2.0" {
		at = b.rootLoc.at("securityDefinitions")
	}
	for _, name := range sortedMapKeys(b.doc.Components.SecuritySchemes) {
		sr := b.doc.Components.SecuritySchemes[name]
		if sr == nil || sr.Value == nil {
			continue
		}
		s := sr.Value
		var unsupported ir.Diagnostics
		if s.Type == "apiKey" && (s.In == "header" || s.In == "cookie") {
			// Kept when unusable: operations name it, and the generator
			// refuses it or drops it with the alternatives naming it.
			if d, ok := tokenProblem(b.l.sink, b.follow(at.at(name)).at("name"), "", ruleHeaderName, "apiKey "+s.In+" name", s.Name); !ok {
				unsupported = append(unsupported, d)
			}
		}
		out = append(out, &ir.SecurityScheme{Unsupported: unsupported,
			Name: name, GoName: names.unique(GoName(name)), Type: s.Type, Scheme: strings.ToLower(s.Scheme),
			BearerFormat: s.BearerFormat, In: ir.ParamLocation(s.In), ParamName: s.Name,
			Description: s.Description, Source: b.l.sink.source(b.follow(at.at(name))),
			ClientCredentials: b.clientCredentials(s, b.follow(at.at(name))),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].GoName < out[j].GoName })
	return out
}

package parser

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/ir"
)

const extPagination = "x-pagination"

// paginationMembers are the members of x-pagination each kind allows besides
// kind, items, hasMore and x- members.
var paginationMembers = map[ir.PaginationKind][]string{
	ir.PageCursor: {"param", "cursor", "lastItem", "limit"},
	ir.PageOffset: {"param", "limit", "total"},
	ir.PagePage:   {"param", "limit", "total"},
	ir.PageLink:   {"next", "limit", "total"},
}

// pagination resolves the operation's paging contract: its own x-pagination,
// else its path item's, else the inferred one (reported as an info finding).
// x-pagination: false on either level says the operation is not paginated.
func (b *builder) pagination(r *rawOp, op *ir.Operation) *ir.Pagination {
	for _, l := range []struct {
		at    loc
		level ir.Level
	}{{r.at.at(extPagination), ir.LevelOperation}, {r.itemAt.at(extPagination), ir.LevelPathItem}} {
		if l.at.node != nil {
			return pageReader{sink: b.l.sink, op: op}.parse(l.at, l.level)
		}
	}
	p := InferPagination(op)
	if p != nil {
		p.Source = op.Source
		b.l.sink.add(ir.SeverityInfo, r.at, op.ID, rulePaginationInferred,
			"inferred "+PaginationSummary(p)+"; annotate x-pagination to confirm it (or x-pagination: false)")
	}
	return p
}

type pageReader struct {
	sink *diagSink
	op   *ir.Operation
}

func (r pageReader) errorf(at loc, rule, format string, args ...any) {
	r.sink.errorf(at, r.op.ID, rule, format, args...)
}

// parse reads one x-pagination value: false, or an object whose members
// must fit its kind and name real parameters and response fields.
func (r pageReader) parse(at loc, level ir.Level) *ir.Pagination {
	n := unalias(at.node)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && n.Value == "false" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		r.errorf(at, rulePaginationType, "x-pagination must be an object {kind: cursor|offset|page|link, ...} or false, not %s", describe(n))
		return nil
	}
	p := &ir.Pagination{Level: level, Source: r.sink.source(at)}
	if !r.readKind(at, p) {
		return nil
	}
	str, ok := r.readMembers(at, n, p.Kind)
	if !ok || !r.requiredMembers(at, p.Kind, str) {
		return nil
	}
	ok = r.queryParams(at, p, str)
	body := successSchema(r.op)
	items, itemsOK, found := r.readItems(at, p, str, body)
	if !found {
		return nil
	}
	ok = r.fields(at, p, str, body, items) && itemsOK && ok
	if !ok {
		return nil
	}
	p.Stop = p.ResolveStop()
	return p
}

// readKind sets p.Kind from the kind member; false when it is missing or
// unknown (reported).
func (r pageReader) readKind(at loc, p *ir.Pagination) bool {
	kindAt := at.at("kind")
	switch k := ir.PaginationKind(scalarString(kindAt.node)); {
	case kindAt.node == nil:
		r.errorf(at, rulePaginationKind, "x-pagination needs a kind: cursor, offset, page or link")
		return false
	case paginationMembers[k] == nil:
		r.errorf(kindAt, rulePaginationKind, "x-pagination kind must be cursor, offset, page or link, not %s", describe(unalias(kindAt.node)))
		return false
	default:
		p.Kind = k
		return true
	}
}

// readMembers returns the string members of n, x- members aside; false
// when a member is not one the kind takes or not a string (each reported).
func (r pageReader) readMembers(at loc, n *yaml.Node, kind ir.PaginationKind) (map[string]string, bool) {
	ok := true
	allowed := append([]string{"kind", "items", "hasMore"}, paginationMembers[kind]...)
	str := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if strings.HasPrefix(k, "x-") {
			continue
		}
		if !contains(allowed, k) {
			r.errorf(at.at(k), rulePaginationMember, "%q is not a member of x-pagination kind %s (allowed: %s)", k, kind, strings.Join(allowed, ", "))
			ok = false
			continue
		}
		v := unalias(n.Content[i+1])
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
			r.errorf(at.at(k), rulePaginationType, "x-pagination %s must be a string, not %s", k, describe(v))
			ok = false
			continue
		}
		str[k] = v.Value
	}
	return str, ok
}

// requiredMembers checks the members a kind cannot do without.
func (r pageReader) requiredMembers(at loc, kind ir.PaginationKind, str map[string]string) bool {
	switch {
	case kind == ir.PageCursor && (str["cursor"] == "") == (str["lastItem"] == ""):
		r.errorf(at, rulePaginationMember, "x-pagination kind cursor needs exactly one of cursor (a response field) and lastItem (a field of the last item)")
		return false
	case kind != ir.PageLink && str["param"] == "":
		r.errorf(at, rulePaginationParam, "x-pagination kind %s needs param: the query parameter that carries the %s", kind, kind)
		return false
	}
	return true
}

// queryParams sets p.Param and p.Limit, each of which must name a query
// parameter of the operation.
func (r pageReader) queryParams(at loc, p *ir.Pagination, str map[string]string) bool {
	ok := true
	for _, m := range []struct {
		name string
		dst  *string
	}{{"param", &p.Param}, {"limit", &p.Limit}} {
		if v, set := str[m.name]; set {
			if !hasQueryParam(r.op, v) {
				r.errorf(at.at(m.name), rulePaginationParam, "%s %q is not a query parameter of the operation", m.name, v)
				ok = false
			}
			*m.dst = v
		}
	}
	return ok
}

// readItems sets p.Items and returns the items' schema. ok is false when
// items does not lead to an array; found is false when there is no JSON
// success response at all, which stops the checks (both reported).
func (r pageReader) readItems(at loc, p *ir.Pagination, str map[string]string, body *ir.Schema) (items *ir.Schema, ok, found bool) {
	p.Items = parseField(str["items"])
	items, found = lookupField(body, p.Items)
	switch {
	case body == nil:
		r.errorf(at.at("items"), rulePaginationItems, "the operation has no JSON success response to page through")
		return nil, false, false
	case !found || (items != nil && items.Deref().Kind != ir.KindArray && items.Deref().Kind != ir.KindAny):
		r.errorf(at.at("items"), rulePaginationItems, "items %s does not lead to an array in the success response", itemsText(p.Items))
		return items, false, true
	}
	return items, true, true
}

// fields sets the response fields the kind reads (cursor, next, hasMore,
// total in the body; lastItem in an item), each of which must exist there.
func (r pageReader) fields(at loc, p *ir.Pagination, str map[string]string, body, items *ir.Schema) bool {
	ok := true
	for _, m := range []struct {
		name   string
		dst    *ir.Field
		schema *ir.Schema
	}{{"cursor", &p.Cursor, body}, {"next", &p.Next, body}, {"hasMore", &p.HasMore, body}, {"total", &p.Total, body}, {"lastItem", &p.LastItem, elemOf(items)}} {
		v, set := str[m.name]
		if !set {
			continue
		}
		*m.dst = parseField(v)
		if _, found := lookupField(m.schema, *m.dst); !found || len(*m.dst) == 0 {
			r.errorf(at.at(m.name), rulePaginationField, "%s %q is not a field of the %s", m.name, v,
				map[bool]string{true: "items", false: "success response"}[m.name == "lastItem"])
			ok = false
		}
	}
	return ok
}

// parseField reads a dotted path ("links.next") or a JSON pointer
// ("/links/next"); "", "." and "/" are the body itself.
func parseField(s string) ir.Field {
	switch {
	case s == "" || s == "." || s == "/":
		return nil
	case strings.HasPrefix(s, "/"):
		var f ir.Field
		for _, t := range strings.Split(s[1:], "/") {
			f = append(f, strings.NewReplacer("~1", "/", "~0", "~").Replace(t))
		}
		return f
	}
	return strings.Split(s, ".")
}

// lookupField walks f through object properties. A schema that says nothing
// (any) accepts every path; found is false when a step is missing.
func lookupField(s *ir.Schema, f ir.Field) (*ir.Schema, bool) {
	for i, name := range f {
		s = s.Deref()
		if s == nil || s.Kind == ir.KindAny {
			return nil, true
		}
		if len(s.Variants) > 0 {
			// A union: the path must exist in every variant; its type is
			// then not one schema.
			for _, v := range s.Variants {
				if _, found := lookupField(v, f[i:]); !found {
					return nil, false
				}
			}
			return nil, true
		}
		p := property(s, name)
		if p == nil {
			return nil, false
		}
		s = p.Type
	}
	return s, true
}

func property(s *ir.Schema, name string) *ir.Property {
	if s = s.Deref(); s == nil {
		return nil
	}
	for _, p := range s.Properties {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func elemOf(s *ir.Schema) *ir.Schema {
	if s = s.Deref(); s != nil && s.Kind == ir.KindArray {
		return s.Items
	}
	return nil
}

func hasQueryParam(op *ir.Operation, name string) bool {
	for _, p := range op.Params {
		if p.In == ir.InQuery && p.Name == name {
			return true
		}
	}
	return false
}

// successSchema is the schema of the first JSON success response; nil when
// there is none.
func successSchema(op *ir.Operation) *ir.Schema {
	for _, r := range op.Responses {
		if !r.IsSuccess() {
			continue
		}
		for _, m := range r.Content {
			if strings.Contains(m.Name, "json") {
				if m.Schema == nil {
					return &ir.Schema{Kind: ir.KindAny}
				}
				return m.Schema
			}
		}
	}
	return nil
}

func itemsText(f ir.Field) string {
	if len(f) == 0 {
		return "(the body itself)"
	}
	return strconv.Quote(f.String())
}

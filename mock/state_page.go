package mock

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/idemgen/idemgen/ir"
)

// defaultPageSize is the size of a page when the request sets no limit
// and the limit parameter declares no default.
const defaultPageSize = 10

// linkOffsetParam carries the position of the next page in the URL a link
// paged list points to, when the operation declares no page parameter.
const linkOffsetParam = "idemgen_offset"

// listPage is one page of a list and what leads to the next one.
type listPage struct {
	items []stored
	total int
	more  bool
	next  string // the next page's cursor, offset, page number or URL
}

// pageOf cuts the page the request asks for out of all, as the paging
// contract says; a cursor that names nothing is a problem (400).
func pageOf(r *http.Request, rt *route, all []stored) (listPage, *Problem) {
	p := rt.state.page
	if p == nil {
		return listPage{items: all, total: len(all)}, nil
	}
	q := r.URL.Query()
	size := pageSize(rt, p, q)
	param, pageNumbers := p.Param, p.Kind == ir.PagePage
	if p.Kind == ir.PageLink {
		param, pageNumbers = linkOffsetParam, hasParam(rt, "page")
		if pageNumbers {
			param = "page"
		}
	}
	start, prob := startOf(p, all, q.Get(param), size, pageNumbers)
	if prob != nil {
		return listPage{}, prob
	}
	end := start + min(size, len(all)-start) // never start+size: size may be near the largest int
	pg := listPage{items: all[start:end], total: len(all), more: end < len(all)}
	if !pg.more {
		return pg, nil
	}
	switch {
	case p.Kind == ir.PageCursor:
		pg.next = strconv.FormatUint(all[end-1].seq, 10)
	case pageNumbers:
		pg.next = strconv.Itoa(end/size + 1)
	default:
		pg.next = strconv.Itoa(end)
	}
	if p.Kind == ir.PageLink {
		pg.next = nextURL(r, param, pg.next)
	}
	return pg, nil
}

// startOf is the index of the page's first item given the value of the
// paging parameter (empty on the first page).
func startOf(p *ir.Pagination, all []stored, v string, size int, pageNumbers bool) (int, *Problem) {
	if v == "" {
		return 0, nil
	}
	bad := &Problem{Status: http.StatusBadRequest, Type: "bad-cursor", Title: "Unknown page position",
		Errors: []FieldError{{In: "query", Name: p.Param, Reason: fmt.Sprintf("%q names no position in the list", v)}}}
	bad.Detail = bad.Errors[0].Reason
	switch {
	case p.Kind == ir.PageCursor && len(p.LastItem) > 0:
		for i, it := range all {
			if scalarString(valueAt(it.value, p.LastItem)) == v {
				return i + 1, nil
			}
		}
		return 0, bad
	case p.Kind == ir.PageCursor:
		seq, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, bad
		}
		i := 0
		for i < len(all) && all[i].seq <= seq {
			i++
		}
		return i, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, bad
	}
	if pageNumbers {
		// Page n starts after n-1 full pages; past the end (or past an
		// overflow) is an empty page.
		if n = max(n-1, 0); n > len(all)/size {
			return len(all), nil
		}
		n *= size
	}
	return min(n, len(all)), nil
}

// pageSize is the request's limit, else the limit parameter's default,
// else defaultPageSize.
func pageSize(rt *route, p *ir.Pagination, q url.Values) int {
	if p.Limit == "" {
		return defaultPageSize
	}
	if n, err := strconv.Atoi(q.Get(p.Limit)); err == nil && n > 0 {
		return n
	}
	for _, prm := range params(rt.item, rt.op) {
		if prm.Name == p.Limit && prm.In == "query" && prm.Schema != nil && prm.Schema.Value != nil {
			if d, ok := prm.Schema.Value.Default.(float64); ok && d >= 1 {
				return int(d)
			}
		}
	}
	return defaultPageSize
}

func hasParam(rt *route, name string) bool {
	for _, p := range params(rt.item, rt.op) {
		if p.In == "query" && p.Name == name {
			return true
		}
	}
	return false
}

// nextURL is the request's URL with param set to v, on the mock's host.
func nextURL(r *http.Request, param, v string) string {
	q := r.URL.Query()
	q.Set(param, v)
	u := url.URL{Scheme: "http", Host: hostOf(r), Path: r.URL.Path, RawQuery: q.Encode()}
	return u.String()
}

// pageBody puts the page into the generated list answer: the items where
// the contract says, the next cursor or URL, has-more and the total.
func pageBody(body any, op *stateOp, pg listPage, h http.Header) any {
	items := make([]any, len(pg.items))
	for i, it := range pg.items {
		items[i] = it.value
	}
	body = setAt(body, op.items, items)
	p := op.page
	if p == nil {
		return body
	}
	for _, f := range []ir.Field{p.Cursor, p.Next} {
		if len(f) > 0 && pg.next != "" {
			body = setAt(body, f, pg.next)
		} else if len(f) > 0 {
			deleteAt(body, f)
		}
	}
	if len(p.HasMore) > 0 {
		body = setAt(body, p.HasMore, pg.more)
	}
	if len(p.Total) > 0 {
		body = setAt(body, p.Total, float64(pg.total))
	}
	if p.Kind == ir.PageLink && len(p.Next) == 0 {
		// The declared Link header's generated value would read as a
		// next page: the last page has none.
		h.Del("Link")
		if pg.next != "" {
			h.Set("Link", "<"+pg.next+`>; rel="next"`)
		}
	}
	return body
}

// valueAt is the member at path in v; nil when missing.
func valueAt(v any, path []string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// setAt sets the member at path in v, making the objects on the way; an
// empty path replaces v.
func setAt(v any, path []string, x any) any {
	if len(path) == 0 {
		return x
	}
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	m[path[0]] = setAt(m[path[0]], path[1:], x)
	return m
}

// deleteAt removes the member at path, if it is there.
func deleteAt(v any, path []string) {
	if m, ok := valueAt(v, path[:len(path)-1]).(map[string]any); ok {
		delete(m, path[len(path)-1])
	}
}

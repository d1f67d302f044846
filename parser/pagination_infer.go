package parser

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// InferPagination recognises the common paging conventions of an operation
// without x-pagination (docs/extensions.md, "Inference"), first match wins:
//
//  1. starting_after + a has_more field + a data array: a cursor from the
//     last item's id (Stripe);
//  2. a cursor, page_token or pageToken parameter + a next_cursor,
//     next_page_token or nextPageToken field: a cursor from that field;
//  3. a GET whose success response declares a Link header, or whose bare
//     array body takes an opaque page token (page_token, pageToken, cursor)
//     that it has no room to return: the Link header's rel="next" (GitHub,
//     Ory Kratos, whose 1.3 document declares no Link header), whatever
//     page-number or offset parameters it also takes, since a server that
//     sends the next page's URL may not count pages the way a client would
//     (Kratos's page is an opaque token);
//  4. offset + limit parameters;
//  5. page + per_page parameters.
//
// Each also needs an items array (the body itself, or a data, items or
// results array, or the only array field). It returns nil otherwise.
func InferPagination(op *ir.Operation) *ir.Pagination {
	body := successSchema(op)
	if body == nil {
		return nil
	}
	items, ok := itemsField(body)
	if !ok {
		return nil
	}
	p := &ir.Pagination{Items: items, Level: ir.LevelInferred}
	if hasQueryParam(op, "limit") {
		p.Limit = "limit"
	}
	bodyField := func(names ...string) ir.Field {
		for _, n := range names {
			if property(body, n) != nil {
				return ir.Field{n}
			}
		}
		return nil
	}
	queryParam := func(names ...string) string {
		for _, n := range names {
			if hasQueryParam(op, n) {
				return n
			}
		}
		return ""
	}
	switch {
	case hasQueryParam(op, "starting_after") && bodyField("has_more") != nil && len(items) == 1 && items[0] == "data":
		p.Kind, p.Param, p.HasMore = ir.PageCursor, "starting_after", ir.Field{"has_more"}
		p.LastItem = ir.Field{"id"}
		if _, found := lookupField(elemOf(fieldSchema(body, items)), p.LastItem); !found {
			return nil
		}
	case queryParam("cursor", "page_token", "pageToken") != "" && bodyField("next_cursor", "next_page_token", "nextPageToken") != nil:
		p.Kind, p.Param = ir.PageCursor, queryParam("cursor", "page_token", "pageToken")
		p.Cursor, p.HasMore = bodyField("next_cursor", "next_page_token", "nextPageToken"), bodyField("has_more")
	case op.Method == "GET" && (declaresLink(op) || len(items) == 0 && queryParam("page_token", "pageToken", "cursor") != ""):
		p.Kind = ir.PageLink
		p.Limit = queryParam("per_page", "limit", "page_size")
	case hasQueryParam(op, "offset") && hasQueryParam(op, "limit"):
		p.Kind, p.Param, p.Total = ir.PageOffset, "offset", bodyField("total", "total_count")
	case hasQueryParam(op, "page") && hasQueryParam(op, "per_page"):
		p.Kind, p.Param, p.Limit, p.Total = ir.PagePage, "page", "per_page", bodyField("total", "total_count")
	default:
		return nil
	}
	p.Stop = p.ResolveStop()
	return p
}

func fieldSchema(s *ir.Schema, f ir.Field) *ir.Schema {
	s, _ = lookupField(s, f)
	return s
}

// itemsField finds the items array of a success body: the body itself, a
// data, items or results array field, or its only array field.
func itemsField(body *ir.Schema) (ir.Field, bool) {
	b := body.Deref()
	switch {
	case b == nil:
		return nil, false
	case b.Kind == ir.KindArray:
		return nil, true
	case b.Kind != ir.KindObject:
		return nil, false
	}
	var arrays []string
	for _, p := range b.Properties {
		if p.Type.Deref() != nil && p.Type.Deref().Kind == ir.KindArray {
			arrays = append(arrays, p.Name)
		}
	}
	for _, n := range []string{"data", "items", "results"} {
		if contains(arrays, n) {
			return ir.Field{n}, true
		}
	}
	if len(arrays) == 1 {
		return ir.Field{arrays[0]}, true
	}
	return nil, false
}

func declaresLink(op *ir.Operation) bool {
	for _, r := range op.Responses {
		if !r.IsSuccess() {
			continue
		}
		for _, h := range r.Headers {
			if strings.EqualFold(h.Name, "Link") {
				return true
			}
		}
	}
	return false
}

// PaginationSummary states a contract in one phrase, for lint and docs:
// "cursor pagination: starting_after = last item's id, items data, stop when has_more is false".
func PaginationSummary(p *ir.Pagination) string {
	var s string
	switch {
	case p.Kind == ir.PageLink && len(p.Next) == 0:
		s = `link pagination: follow the Link header's rel="next"`
	case p.Kind == ir.PageLink:
		s = fmt.Sprintf("link pagination: follow the URL in %s", p.Next)
	case len(p.LastItem) > 0:
		s = fmt.Sprintf("cursor pagination: %s = the last item's %s", p.Param, p.LastItem)
	case len(p.Cursor) > 0:
		s = fmt.Sprintf("cursor pagination: %s = %s", p.Param, p.Cursor)
	default:
		s = fmt.Sprintf("%s pagination: %s", p.Kind, p.Param)
	}
	if p.Limit != "" {
		s += ", page size " + p.Limit
	}
	s += ", items " + itemsText(p.Items)
	switch p.Stop {
	case ir.StopHasMore:
		s += fmt.Sprintf(", stop when %s is false", p.HasMore)
	case ir.StopNoCursor:
		s += ", stop when there is no next cursor or link"
	case ir.StopTotal:
		s += fmt.Sprintf(", stop after %s items", p.Total)
	case ir.StopEmpty:
		s += ", stop at an empty page"
	}
	return s
}

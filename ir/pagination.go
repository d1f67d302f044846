package ir

import "strings"

// PaginationKind is how the next page is requested.
type PaginationKind string

// The pagination kinds of docs/extensions.md (x-pagination).
const (
	// PageCursor sends a cursor in Param: taken from a response field
	// (Cursor: next_cursor, next_page_token) or from a field of the last item
	// (LastItem: Stripe's starting_after = the last item's id).
	PageCursor PaginationKind = "cursor"
	// PageOffset sends the number of items already read in Param.
	PageOffset PaginationKind = "offset"
	// PagePage sends the page number (1, 2, ...) in Param.
	PagePage PaginationKind = "page"
	// PageLink follows a URL: the RFC 8288 Link header's rel="next" when Next
	// is empty, else the URL in the response field Next (next, links.next).
	PageLink PaginationKind = "link"
)

// Field is a path of member names into a JSON response body ("links.next"
// is {"links", "next"}); nil is the body itself.
type Field []string

// String renders the path dotted, or "." for the body itself.
func (f Field) String() string {
	if len(f) == 0 {
		return "."
	}
	return strings.Join(f, ".")
}

// Pagination is an operation's resolved paging contract.
type Pagination struct {
	Kind PaginationKind
	// Param is the query parameter that carries the cursor, offset or page
	// number; empty for PageLink.
	Param string
	// Cursor is the response field holding the next cursor (PageCursor).
	Cursor Field
	// LastItem is the field of the last item that is the next cursor
	// (PageCursor; exclusive with Cursor).
	LastItem Field
	// Next is the response field holding the next page's URL (PageLink); nil
	// means the Link header.
	Next Field
	// Items is where the page's items are: an array field, or nil when the
	// body itself is the array.
	Items Field
	// Limit is the page-size query parameter ("limit", "per_page"), if any.
	Limit string
	// HasMore is a boolean response field that is false on the last page.
	HasMore Field
	// Total is a response field with the total number of items.
	Total Field
	// Stop says when the iteration ends, resolved from the fields above.
	Stop PageStop
	// Level is LevelOperation, LevelPathItem or LevelInferred.
	Level  Level
	Source Source
}

// PageStop is the condition that ends an iteration.
type PageStop string

// The stop conditions, in the order they are chosen.
const (
	// StopHasMore: the HasMore field is false (or absent).
	StopHasMore PageStop = "hasMore"
	// StopNoCursor: the Cursor field, the Next field or the Link header's
	// rel="next" is missing or empty.
	StopNoCursor PageStop = "noCursor"
	// StopTotal: Total items have been read (offset, page).
	StopTotal PageStop = "total"
	// StopEmpty: a page with no items (offset, page and last-item cursors
	// without HasMore).
	StopEmpty PageStop = "emptyPage"
)

// ResolveStop returns the stop condition the fields imply.
func (p *Pagination) ResolveStop() PageStop {
	switch {
	case len(p.HasMore) > 0:
		return StopHasMore
	case p.Kind == PageLink, p.Kind == PageCursor && len(p.Cursor) > 0:
		return StopNoCursor
	case len(p.Total) > 0:
		return StopTotal
	}
	return StopEmpty
}

package runtime

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"reflect"
	"slices"
	"strconv"
)

// PageKind is how a Pager asks for the page after the one it read.
type PageKind int

// The pagination kinds of x-pagination (docs/extensions.md).
const (
	// PageCursor sends the cursor Next returns: a response field (a next
	// page token) or a field of the last item (Stripe's starting_after).
	PageCursor PageKind = iota
	// PageOffset sends the number of items read so far (from the start
	// offset); the Pager computes it.
	PageOffset
	// PageNumber sends the page number: 1 when the first page had none,
	// then 2, 3, ...; the Pager computes it.
	PageNumber
	// PageLink follows the next page's URL: Next's (a body field) or, when
	// Next is nil, the Link header's rel="next". The URL is the server's
	// and so hostile input: it is resolved against the page's request URL
	// and refused unless it is on the operation's server (ErrForeignNextLink).
	PageLink
)

// Pager iterates the pages of one paginated operation. Generated code fills
// it in (the <Op>Iter and <Op>Pages methods); the loop, the stop rules and
// the resume cursor are the runtime's. A Pager is used by one iteration at
// a time; Pages and Items make no request until the loop starts, and none
// once it stops.
type Pager[P, T any] struct {
	Kind PageKind
	// Start is the first page's cursor, from the caller's params ("" for
	// none); a WithCursor among Opts replaces it.
	Start string
	// Opts are the caller's call options, given to every page call.
	Opts []CallOption
	// Fetch calls the page method with cursor placed in its parameter (for
	// PageLink the Pager adds the next URL as a call option instead).
	Fetch func(ctx context.Context, cursor string, opts []CallOption) (*P, error)
	// ItemsOf returns the items of a page.
	ItemsOf func(*P) []T
	// Next returns the next cursor of a PageCursor page, or the raw next URL
	// of a PageLink page whose URL is in the body; "" means none.
	Next func(*P, *http.Response) string
	// HasMore, when set, says whether pages follow this one.
	HasMore func(*P) bool
	// Total, when set, returns the total number of items, if the page says.
	Total func(*P) (int64, bool)
}

// Pages iterates the pages, fetched one at a time as the loop asks for
// them. Each page is its own call under the operation's retry contract,
// drawing on the Runner's shared retry budget. A failure yields one
// *PageError, whose cursor resumes the iteration (CursorOf, WithCursor), and
// ends the loop.
//
// Pages and Items are not inlined: inlined, their loops were compiled again
// into every generated <Op>Pages and <Op>Iter method.
//
//go:noinline
func (p *Pager[P, T]) Pages(ctx context.Context) iter.Seq2[*P, error] {
	return func(yield func(*P, error) bool) {
		run := newPageRun(p.erased())
		for {
			page, err := run.fetch(ctx)
			if err != nil {
				yield(nil, err)
				return
			}
			typed := page.(*P)
			run.items += int64(len(p.ItemsOf(typed)))
			if !yield(typed, nil) || run.done {
				return
			}
		}
	}
}

// Items iterates the items of every page, in order; see Pages.
//
//go:noinline
func (p *Pager[P, T]) Items(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		run := newPageRun(p.erased())
		for {
			page, err := run.fetch(ctx)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range p.ItemsOf(page.(*P)) {
				run.items++
				if !yield(item, nil) {
					return
				}
			}
			if run.done {
				return
			}
		}
	}
}

// pageFuncs is a Pager with its page type erased: a page is an any holding
// a *P. The iteration (pageRun) is written against it, so it is compiled
// once for the runtime, not once per page type in every generated package:
// as methods of a generic pageRun it was instantiated for each of GitHub's
// 278 page shapes and made 40% of that package's machine code, more than
// doubling its build time (docs/benchmarks.md, "Generation").
type pageFuncs struct {
	kind  PageKind
	start string
	opts  []CallOption
	// fetch returns nil for no page; the others are nil when the Pager's are.
	fetch func(ctx context.Context, cursor string, opts []CallOption) (any, error)
	count func(page any) int
	// same reports whether two pages hold equal items.
	same    func(a, b any) bool
	next    func(page any, resp *http.Response) string
	hasMore func(page any) bool
	total   func(page any) (int64, bool)
}

// erased returns p's callbacks on erased pages.
func (p *Pager[P, T]) erased() *pageFuncs {
	f := &pageFuncs{
		kind: p.Kind, start: p.Start, opts: p.Opts,
		fetch: func(ctx context.Context, cursor string, opts []CallOption) (any, error) {
			page, err := p.Fetch(ctx, cursor, opts)
			if page == nil {
				return nil, err
			}
			return page, err
		},
		count: func(page any) int { return len(p.ItemsOf(page.(*P))) },
		same:  func(x, y any) bool { return sameItems(p.ItemsOf(x.(*P)), p.ItemsOf(y.(*P))) },
	}
	if next := p.Next; next != nil {
		f.next = func(page any, resp *http.Response) string { return next(page.(*P), resp) }
	}
	if hasMore := p.HasMore; hasMore != nil {
		f.hasMore = func(page any) bool { return hasMore(page.(*P)) }
	}
	if total := p.Total; total != nil {
		f.total = func(page any) (int64, bool) { return total(page.(*P)) }
	}
	return f
}

// sameItems reports whether a and b hold equal items, field for field.
// The first differing item ends it (the first item, in a real list), and
// comparing through pointers into the slices allocates nothing.
func sameItems[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// pageRun is the state of one iteration.
type pageRun struct {
	p *pageFuncs
	// cursor is the cursor of the next page to fetch, and page its number
	// in this iteration (1 for the first).
	cursor string
	page   int
	// items counts the items handed to the caller.
	items int64
	// size is the largest page seen, for a page-number Total.
	size int64
	// seen holds every cursor requested, to refuse a repeated one.
	seen map[string]bool
	// empty counts the empty pages in a row that asked for more, up to
	// maxEmpty; prev is the last page that held items.
	empty, maxEmpty int
	prev            any
	// theirs is the caller's WithResponse destination, if any: the Pager
	// reads each page's response with its own and hands it on.
	theirs **http.Response
	done   bool
}

// newPageRun starts an iteration at WithCursor's cursor, else at start,
// with WithMaxEmptyPages' limit, else DefaultMaxEmptyPages.
func newPageRun(p *pageFuncs) *pageRun {
	run := &pageRun{p: p, cursor: p.start, seen: map[string]bool{}, maxEmpty: DefaultMaxEmptyPages}
	var cfg callConfig
	for _, o := range p.opts {
		switch o := o.(type) {
		case cursorOption:
			run.cursor = string(o)
		case maxEmptyOption:
			if o > 0 {
				run.maxEmpty = int(o)
			}
		}
		o.applyCall(&cfg)
	}
	run.theirs = cfg.resp
	return run
}

// fetch reads the next page and decides what follows it.
func (r *pageRun) fetch(ctx context.Context) (any, error) {
	r.page++
	if r.seen[r.cursor] {
		return nil, r.fail(ErrRepeatedCursor)
	}
	r.seen[r.cursor] = true
	var resp *http.Response
	opts := append(slices.Clip(r.p.opts), WithResponse(&resp))
	if r.p.kind == PageLink && r.cursor != "" {
		opts = append(opts, nextURL(r.cursor))
	}
	page, err := r.p.fetch(ctx, r.cursor, opts)
	if r.theirs != nil {
		*r.theirs = resp
	}
	if err == nil && page == nil {
		err = errNilPage
	}
	if err != nil {
		return nil, r.fail(err)
	}
	if err := r.repeated(page); err != nil {
		return nil, r.fail(err)
	}
	if err := r.advance(page, resp); err != nil {
		return nil, r.fail(err)
	}
	return page, nil
}

// errNilPage reports a Fetch that returned neither a page nor an error.
var errNilPage = errors.New("pager: the page method returned no page")

// fail wraps err with the cursor of the page that failed.
func (r *pageRun) fail(err error) error {
	return &PageError{Cursor: r.cursor, Page: r.page, Items: r.items, Err: err}
}

// repeated refuses a page whose items are the previous page's: a server
// serving one page under ever new cursors (a counter in the next URL)
// would otherwise hand the caller the same items forever. Its items are
// not handed out again.
func (r *pageRun) repeated(page any) error {
	if r.p.count(page) == 0 {
		return nil
	}
	if r.prev != nil && r.p.same(r.prev, page) {
		return &NoProgressError{Repeated: true}
	}
	r.prev = page
	return nil
}

// advance computes the next cursor from page and whether the iteration is
// done; an empty page that says more follow is an error, and so is a run
// of maxEmpty empty pages that each give a next cursor.
func (r *pageRun) advance(page any, resp *http.Response) error {
	n := int64(r.p.count(page))
	r.size = max(r.size, n)
	next, err := r.next(page, resp, n)
	if err != nil {
		return err
	}
	more, known := r.more(page, next, n)
	switch {
	case !more:
		r.done = true
		return nil
	case n == 0 && known:
		return ErrEmptyPage
	case next == "":
		return ErrNoNextCursor
	}
	// Only a cursor or link page without HasMore gets here empty.
	if r.empty++; n > 0 {
		r.empty = 0
	} else if r.empty >= r.maxEmpty {
		return &NoProgressError{EmptyPages: r.empty}
	}
	r.cursor = next
	return nil
}

// next is the cursor of the page after page, which held n items.
func (r *pageRun) next(page any, resp *http.Response, n int64) (string, error) {
	switch r.p.kind {
	case PageOffset:
		from, err := r.number(0)
		return strconv.FormatInt(from+n, 10), err
	case PageNumber:
		at, err := r.number(1)
		return strconv.FormatInt(at+1, 10), err
	case PageLink:
		raw := ""
		if r.p.next != nil {
			raw = r.p.next(page, resp)
		} else if resp != nil {
			raw = NextLink(resp.Header)
		}
		return resolveNext(raw, resp)
	}
	if r.p.next == nil {
		return "", nil
	}
	return r.p.next(page, resp), nil
}

// number reads the cursor of an offset or page-number iteration, def when
// the page was asked for without one.
func (r *pageRun) number(def int64) (int64, error) {
	if r.cursor == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(r.cursor, 10, 64)
	if err != nil || n < 0 {
		return 0, errBadNumber
	}
	return n, nil
}

// errBadNumber reports an offset or page cursor that is not a number.
var errBadNumber = errors.New("pager: the offset or page cursor is not a non-negative number")

// more reports whether pages follow, and whether the page said so itself
// (HasMore, Total) rather than it being inferred from a cursor or an empty
// page.
func (r *pageRun) more(page any, next string, n int64) (more, known bool) {
	if r.p.hasMore != nil {
		return r.p.hasMore(page), true
	}
	switch r.p.kind {
	case PageCursor, PageLink:
		return next != "", false
	}
	if r.p.total != nil {
		if total, ok := r.p.total(page); ok {
			return r.readThrough(n) < total, true
		}
	}
	return n > 0, false
}

// readThrough is how many items precede the next page: the next offset,
// or pages read times the page size.
func (r *pageRun) readThrough(n int64) int64 {
	if r.p.kind == PageOffset {
		from, _ := r.number(0)
		return from + n
	}
	at, _ := r.number(1)
	return at * r.size
}

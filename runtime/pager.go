package runtime

import (
	"context"
	"errors"
	"iter"
	"net/http"
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
func (p *Pager[P, T]) Pages(ctx context.Context) iter.Seq2[*P, error] {
	return func(yield func(*P, error) bool) {
		run := p.newRun()
		for {
			page, err := run.fetch(ctx)
			if err != nil {
				yield(nil, err)
				return
			}
			run.items += int64(len(p.ItemsOf(page)))
			if !yield(page, nil) || run.done {
				return
			}
		}
	}
}

// Items iterates the items of every page, in order; see Pages.
func (p *Pager[P, T]) Items(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		run := p.newRun()
		for {
			page, err := run.fetch(ctx)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range p.ItemsOf(page) {
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

// pageRun is the state of one iteration.
type pageRun[P, T any] struct {
	p *Pager[P, T]
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
	// theirs is the caller's WithResponse destination, if any: the Pager
	// reads each page's response with its own and hands it on.
	theirs **http.Response
	done   bool
}

// newRun starts an iteration at WithCursor's cursor, else at Start.
func (p *Pager[P, T]) newRun() *pageRun[P, T] {
	run := &pageRun[P, T]{p: p, cursor: p.Start, seen: map[string]bool{}}
	var cfg callConfig
	for _, o := range p.Opts {
		if c, ok := o.(cursorOption); ok {
			run.cursor = string(c)
		}
		o.applyCall(&cfg)
	}
	run.theirs = cfg.resp
	return run
}

// fetch reads the next page and decides what follows it.
func (r *pageRun[P, T]) fetch(ctx context.Context) (*P, error) {
	r.page++
	if r.seen[r.cursor] {
		return nil, r.fail(ErrRepeatedCursor)
	}
	r.seen[r.cursor] = true
	var resp *http.Response
	opts := append(slices.Clip(r.p.Opts), WithResponse(&resp))
	if r.p.Kind == PageLink && r.cursor != "" {
		opts = append(opts, nextURL(r.cursor))
	}
	page, err := r.p.Fetch(ctx, r.cursor, opts)
	if r.theirs != nil {
		*r.theirs = resp
	}
	if err == nil && page == nil {
		err = errNilPage
	}
	if err != nil {
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
func (r *pageRun[P, T]) fail(err error) error {
	return &PageError{Cursor: r.cursor, Page: r.page, Items: r.items, Err: err}
}

// advance computes the next cursor from page and whether the iteration is
// done; an empty page that says more follow is an error.
func (r *pageRun[P, T]) advance(page *P, resp *http.Response) error {
	n := int64(len(r.p.ItemsOf(page)))
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
	r.cursor = next
	return nil
}

// next is the cursor of the page after page, which held n items.
func (r *pageRun[P, T]) next(page *P, resp *http.Response, n int64) (string, error) {
	switch r.p.Kind {
	case PageOffset:
		from, err := r.number(0)
		return strconv.FormatInt(from+n, 10), err
	case PageNumber:
		at, err := r.number(1)
		return strconv.FormatInt(at+1, 10), err
	case PageLink:
		raw := ""
		if r.p.Next != nil {
			raw = r.p.Next(page, resp)
		} else if resp != nil {
			raw = NextLink(resp.Header)
		}
		return resolveNext(raw, resp)
	}
	if r.p.Next == nil {
		return "", nil
	}
	return r.p.Next(page, resp), nil
}

// number reads the cursor of an offset or page-number iteration, def when
// the page was asked for without one.
func (r *pageRun[P, T]) number(def int64) (int64, error) {
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
func (r *pageRun[P, T]) more(page *P, next string, n int64) (more, known bool) {
	if r.p.HasMore != nil {
		return r.p.HasMore(page), true
	}
	switch r.p.Kind {
	case PageCursor, PageLink:
		return next != "", false
	}
	if r.p.Total != nil {
		if total, ok := r.p.Total(page); ok {
			return r.readThrough(n) < total, true
		}
	}
	return n > 0, false
}

// readThrough is how many items precede the next page: the next offset,
// or pages read times the page size.
func (r *pageRun[P, T]) readThrough(n int64) int64 {
	if r.p.Kind == PageOffset {
		from, _ := r.number(0)
		return from + n
	}
	at, _ := r.number(1)
	return at * r.size
}

package runtime

import (
	"errors"
	"fmt"
)

// The errors that end an iteration by the server's fault, wrapped in a
// *PageError.
var (
	// ErrRepeatedCursor: the server sent a cursor (token, offset, page
	// number or next URL) that this iteration already requested; following
	// it would loop.
	ErrRepeatedCursor = errors.New("pagination: the server repeated a cursor already requested in this iteration")
	// ErrEmptyPage: a page with no items says more pages follow (has_more
	// true, or a total not reached yet).
	ErrEmptyPage = errors.New("pagination: an empty page says more pages follow")
	// ErrNoNextCursor: a page says more pages follow but gives no cursor or
	// next URL to ask for them.
	ErrNoNextCursor = errors.New("pagination: a page says more pages follow but gives no next cursor")
	// ErrForeignNextLink: a next-page URL is not on the operation's server
	// (scheme, host and port); following it would send the client's
	// credentials to another host.
	ErrForeignNextLink = errors.New("pagination: the next-page URL is not on the operation's server")
)

// PageError ends an iteration: the page that failed and why. Err is the
// page call's error (a *StatusError or *CallError, which errors.Is and
// errors.As still reach) or one of the pagination sentinels.
type PageError struct {
	// Cursor is the cursor of the page that failed: WithCursor(Cursor)
	// starts a new iteration at that page, so that, with the items already
	// received, nothing is missing and nothing comes twice.
	Cursor string
	// Page is the number of the failed page in this iteration (1 for the
	// first), and Items the number of items handed out before it.
	Page  int
	Items int64
	Err   error
}

// Error names the page, the cursor and the cause.
func (e *PageError) Error() string {
	return fmt.Sprintf("page %d (cursor %q, after %d items): %v", e.Page, e.Cursor, e.Items, e.Err)
}

// Unwrap exposes the page call's error.
func (e *PageError) Unwrap() error { return e.Err }

// CursorOf returns the cursor an iteration failed at, when err comes from
// one: give it to WithCursor to resume.
func CursorOf(err error) (string, bool) {
	var pe *PageError
	if errors.As(err, &pe) {
		return pe.Cursor, true
	}
	return "", false
}

// cursorOption is WithCursor's option: the Pager reads it, the engine
// ignores it.
type cursorOption string

func (cursorOption) applyCall(*callConfig) {}

// WithCursor starts an iteration (<Op>Iter, <Op>Pages) at cursor instead of
// the params' first page: an offset, a page number, a token, a last item's
// id or a next URL, as CursorOf returns it. Other calls ignore it.
func WithCursor(cursor string) CallOption { return cursorOption(cursor) }

// ErrNoProgress: the server's pages stopped moving the iteration forward:
// DefaultMaxEmptyPages (or WithMaxEmptyPages') empty pages in a row, each
// with a fresh cursor, or a page whose items are the previous page's. The
// *NoProgressError inside the *PageError says which.
var ErrNoProgress = errors.New("pagination: the server's pages make no progress")

// NoProgressError is the Err of a *PageError that ends an iteration by
// ErrNoProgress.
type NoProgressError struct {
	// EmptyPages is the number of empty pages in a row that ended the
	// iteration; 0 when a page repeated the previous one.
	EmptyPages int
	// Repeated says a page's items equal the previous page's, field for
	// field (a list serving one page under ever new cursors).
	Repeated bool
}

// Error says which rule stopped the iteration.
func (e *NoProgressError) Error() string {
	if e.Repeated {
		return ErrNoProgress.Error() + ": a page repeats the previous page's items"
	}
	return fmt.Sprintf("%v: %d empty pages in a row, each with a next cursor", ErrNoProgress, e.EmptyPages)
}

// Unwrap exposes ErrNoProgress.
func (e *NoProgressError) Unwrap() error { return ErrNoProgress }

// DefaultMaxEmptyPages is how many empty pages in a row an iteration
// follows before it ends with ErrNoProgress, unless WithMaxEmptyPages says
// otherwise. An API whose filter skips items may answer a few empty pages
// with a cursor; one that answers them forever is stopped after these.
const DefaultMaxEmptyPages = 5

// maxEmptyOption is WithMaxEmptyPages' option: the Pager reads it, the
// engine ignores it.
type maxEmptyOption int

func (maxEmptyOption) applyCall(*callConfig) {}

// WithMaxEmptyPages sets how many empty pages in a row (each saying more
// follow with a fresh cursor or next URL) an iteration (<Op>Iter, <Op>Pages)
// follows: the n-th ends it with ErrNoProgress. n < 1 keeps
// DefaultMaxEmptyPages. Other calls ignore it.
func WithMaxEmptyPages(n int) CallOption { return maxEmptyOption(n) }

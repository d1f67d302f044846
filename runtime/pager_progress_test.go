package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// endlessAfter is how many pages a hostile test server serves before it
// gives up and ends the list: a runtime without the progress rules then
// finishes (with every request counted) instead of hanging the test.
const endlessAfter = 200

// endlessEmpty makes a page server of kind name answer, after the catalog,
// empty pages that each give a fresh cursor (a new token, a new next URL)
// and never say the list ended.
func endlessEmpty(t *testing.T, name string) *pageServer {
	s := newPageServer(t, kindNamed(t, name))
	s.fault = noFault
	s.edit = func(p *testPage, h http.Header, idx int) {
		if idx >= endlessAfter {
			return
		}
		switch name {
		case "cursor-field":
			p.NextCursor = fmt.Sprintf("c%d", idx+1)
		case "link-header":
			h.Set("Link", fmt.Sprintf(`<%s/list?page=%d>; rel="next"`, s.srv.URL, idx+1))
		}
	}
	return s
}

// TestPagerEmptyPagesBounded: a cursor or Link header list that answers
// empty pages with a fresh cursor each time ends with ErrNoProgress after
// DefaultMaxEmptyPages of them in a row (or WithMaxEmptyPages'), not after
// thousands of requests the caller never sees.
func TestPagerEmptyPagesBounded(t *testing.T) {
	for _, name := range []string{"cursor-field", "link-header"} {
		for _, limit := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s/limit=%d", name, limit), func(t *testing.T) {
				s := endlessEmpty(t, name)
				var opts []CallOption
				want := DefaultMaxEmptyPages
				if limit > 0 {
					opts, want = append(opts, WithMaxEmptyPages(limit)), limit
				}
				ids, err := drain(s.pager(oneRetryRunner(t), opts...).Items(context.Background()))
				var pe *PageError
				var np *NoProgressError
				if !errors.Is(err, ErrNoProgress) || !errors.As(err, &pe) || !errors.As(err, &np) {
					t.Fatalf("%d items, %v after %d requests; want ErrNoProgress", len(ids), err, s.total())
				}
				if s.total() != 3+want || np.EmptyPages != want || pe.Page != 3+want || !slices.Equal(ids, catalog) {
					t.Fatalf("%d requests, %+v, %v; want the catalog in 3 requests, then %d empty pages", s.total(), np, pe, want)
				}
			})
		}
	}
}

// TestPagerEmptyRunResets: empty pages that are followed by items before
// the limit do not end the iteration: the limit counts empty pages in a
// row (a filtered scan may legitimately answer a few).
func TestPagerEmptyRunResets(t *testing.T) {
	s := newPageServer(t, kindNamed(t, "cursor-field"))
	s.fault = noFault
	// Pages 1..9: items on 1, 4 and 7 only; each empty run is 2 pages.
	s.edit = func(p *testPage, _ http.Header, idx int) {
		p.Items, p.NextCursor = []testItem{}, ""
		if idx%3 == 1 {
			p.Items = []testItem{{catalog[idx-1]}}
		}
		if idx < 9 {
			p.NextCursor = fmt.Sprintf("c%d", idx+1)
		}
	}
	ids, err := drain(s.pager(oneRetryRunner(t), WithMaxEmptyPages(3)).Items(context.Background()))
	if err != nil || !slices.Equal(ids, []string{"a", "d", "g"}) || s.total() != 9 {
		t.Fatalf("%v, %v in %d requests; want a, d, g in 9", ids, err, s.total())
	}
}

// TestPagerRepeatedPage: a server that serves the same items under an ever
// new cursor or next URL (only a counter changes) ends with ErrNoProgress
// at the first repeat: the caller gets the items once, not forever.
func TestPagerRepeatedPage(t *testing.T) {
	for _, name := range []string{"cursor-field", "link-header", "body-next-url"} {
		t.Run(name, func(t *testing.T) {
			s := newPageServer(t, kindNamed(t, name))
			s.fault = noFault
			s.edit = func(p *testPage, h http.Header, idx int) {
				p.Items = []testItem{{"a"}, {"b"}, {"c"}}
				if idx >= endlessAfter {
					return
				}
				p.NextCursor = fmt.Sprintf("c%d", idx+1)
				p.Links.Next = fmt.Sprintf("/list?page=%d", idx+1)
				h.Set("Link", fmt.Sprintf(`<%s/list?page=%d>; rel="next"`, s.srv.URL, idx+1))
			}
			var ids []string
			var err error
			for item, e := range s.pager(oneRetryRunner(t)).Items(context.Background()) {
				if err = e; e != nil || len(ids) > 3*endlessAfter {
					break
				}
				ids = append(ids, item.ID)
			}
			var np *NoProgressError
			if !errors.Is(err, ErrNoProgress) || !errors.As(err, &np) || !np.Repeated {
				t.Fatalf("%d items, %v after %d requests; want ErrNoProgress for a repeated page", len(ids), err, s.total())
			}
			if !slices.Equal(ids, catalog[:3]) || s.total() != 2 {
				t.Fatalf("%v in %d requests; want a, b, c once, in 2", ids, s.total())
			}
		})
	}
}

// TestPagerYieldsBeforeNextRequest: the loop body sees every page's items
// before the next page is asked for, so a caller can always break out: at
// item i the server has answered exactly i/3+1 requests, and at page k, k.
func TestPagerYieldsBeforeNextRequest(t *testing.T) {
	for _, k := range pageKinds {
		t.Run(k.name, func(t *testing.T) {
			s := newPageServer(t, k)
			s.fault = noFault
			i := 0
			for _, err := range s.pager(oneRetryRunner(t)).Items(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				if got := s.total(); got != i/3+1 {
					t.Fatalf("item %d: the server had %d requests, want %d", i, got, i/3+1)
				}
				i++
			}
			pages := 0
			for _, err := range s.pager(oneRetryRunner(t)).Pages(context.Background()) {
				pages++
				if err != nil || s.total() != 3+pages {
					t.Fatalf("page %d: %v, the server had %d requests, want %d", pages, err, s.total(), 3+pages)
				}
			}
		})
	}
}

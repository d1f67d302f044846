package runtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// kindNamed returns the pageKind of that name.
func kindNamed(t *testing.T, name string) pageKind {
	for _, k := range pageKinds {
		if k.name == name {
			return k
		}
	}
	t.Fatalf("no page kind %q", name)
	return pageKind{}
}

// noFault serves every page.
func noFault(int, int) string { return "" }

// TestPagerRepeatedCursor: a server that sends a cursor already requested
// ends the iteration with ErrRepeatedCursor after the pages it did serve,
// instead of looping. (Offsets and page numbers are counted by the Pager
// and never repeat; a server that lies about them ends with ErrEmptyPage.)
func TestPagerRepeatedCursor(t *testing.T) {
	for name, edit := range map[string]func(p *testPage, h http.Header, idx int){
		"cursor-field": func(p *testPage, _ http.Header, _ int) { p.NextCursor = "c2" },
		"last-item": func(p *testPage, _ http.Header, idx int) {
			if idx == 2 {
				p.Items = []testItem{{"d"}, {"e"}, {"c"}} // page 2 ends where page 1 did
			}
		},
		"link-header": func(_ *testPage, h http.Header, _ int) {
			h.Set("Link", strings.Replace(h.Get("Link"), "page=3", "page=2", 1))
		},
		"body-next-url": func(p *testPage, _ http.Header, _ int) { p.Links.Next = "/list?page=2" },
	} {
		t.Run(name, func(t *testing.T) {
			s := newPageServer(t, kindNamed(t, name))
			s.fault, s.edit = noFault, edit
			var ids []string
			var err error
			for item, e := range s.pager(oneRetryRunner(t)).Items(context.Background()) {
				if err = e; e != nil {
					break
				}
				ids = append(ids, item.ID)
			}
			if !errors.Is(err, ErrRepeatedCursor) || len(ids) != 6 || s.total() != 2 {
				t.Fatalf("%v, %v in %d requests; want pages 1 and 2, then ErrRepeatedCursor", ids, err, s.total())
			}
		})
	}
}

// TestPagerEmptyPageWithMore: an empty page that says more follow (has_more
// true, or a total not reached) is an error, not an endless loop or a
// silent end.
func TestPagerEmptyPageWithMore(t *testing.T) {
	for name, tc := range map[string]struct {
		kind  string
		edit  func(p *testPage, h http.Header, idx int)
		items []string
		page  int
	}{
		"has_more": {"last-item", func(p *testPage, _ http.Header, idx int) {
			if idx == 2 {
				p.Items = []testItem{}
			}
		}, catalog[:3], 2},
		"total": {"page", func(p *testPage, _ http.Header, _ int) { *p.Total = 100 }, catalog, 4},
	} {
		t.Run(name, func(t *testing.T) {
			s := newPageServer(t, kindNamed(t, tc.kind))
			s.fault, s.edit = noFault, tc.edit
			ids, err := drain(s.pager(oneRetryRunner(t)).Items(context.Background()))
			var pe *PageError
			if !errors.Is(err, ErrEmptyPage) || !errors.As(err, &pe) || pe.Page != tc.page || !slices.Equal(ids, tc.items) {
				t.Fatalf("%v, %v; want %v, then ErrEmptyPage on page %d", ids, err, tc.items, tc.page)
			}
		})
	}
}

// TestPagerMoreWithoutCursor: has_more true with no cursor to follow.
func TestPagerMoreWithoutCursor(t *testing.T) {
	k := kindNamed(t, "cursor-field")
	k.hasMore = func(*testPage) bool { return true }
	s := newPageServer(t, k)
	s.fault = noFault
	_, err := drain(s.pager(oneRetryRunner(t)).Items(context.Background()))
	if !errors.Is(err, ErrNoNextCursor) {
		t.Fatalf("err = %v, want ErrNoNextCursor", err)
	}
}

// TestPagerEmptyPageStops: without has_more or a total, an offset
// iteration ends at the first empty page.
func TestPagerEmptyPageStops(t *testing.T) {
	k := kindNamed(t, "offset")
	k.total = nil
	s := newPageServer(t, k)
	s.fault = noFault
	ids, err := drain(s.pager(oneRetryRunner(t)).Items(context.Background()))
	if err != nil || !slices.Equal(ids, catalog) || s.total() != 4 {
		t.Fatalf("%v, %v in %d requests; want every item in 4", ids, err, s.total())
	}
}

// TestPagerForeignNextLink: a next URL on another host (or scheme, or
// with user info) is refused before anything is sent: the other host is
// never contacted, so it never sees the client's credentials.
func TestPagerForeignNextLink(t *testing.T) {
	var stolen atomic.Int32
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
	}))
	t.Cleanup(thief.Close)
	for name, tc := range map[string]struct {
		kind string
		edit func(p *testPage, h http.Header, base string)
	}{
		"link-header": {"link-header", func(_ *testPage, h http.Header, _ string) {
			h.Set("Link", `<`+thief.URL+`/list?page=2>; rel="next"`)
		}},
		"body-absolute": {"body-next-url", func(p *testPage, _ http.Header, _ string) { p.Links.Next = thief.URL + "/list?page=2" }},
		"body-scheme-relative": {"body-next-url", func(p *testPage, _ http.Header, _ string) {
			p.Links.Next = "//" + strings.TrimPrefix(thief.URL, "http://") + "/list"
		}},
		"https": {"body-next-url", func(p *testPage, _ http.Header, base string) {
			p.Links.Next = strings.Replace(base, "http:", "https:", 1) + "/list?page=2"
		}},
		"user-info": {"body-next-url", func(p *testPage, _ http.Header, base string) {
			p.Links.Next = strings.Replace(base, "http://", "http://user:pw@", 1) + "/list?page=2"
		}},
	} {
		t.Run(name, func(t *testing.T) {
			s := newPageServer(t, kindNamed(t, tc.kind))
			s.fault = noFault
			s.edit = func(p *testPage, h http.Header, idx int) { tc.edit(p, h, s.srv.URL) }
			r := oneRetryRunner(t)
			r.defaults.headers = []string{"Authorization", "Bearer secret"}
			ids, err := drain(s.pager(r).Items(context.Background()))
			var pe *PageError
			if !errors.Is(err, ErrForeignNextLink) || !errors.As(err, &pe) || pe.Page != 2 || !slices.Equal(ids, catalog[:3]) {
				t.Fatalf("%v, %v; want page 1, then ErrForeignNextLink on page 2", ids, err)
			}
			if stolen.Load() != 0 || s.total() != 1 {
				t.Fatalf("the other host got %d requests, the server %d; want 0 and 1", stolen.Load(), s.total())
			}
		})
	}
}

// TestNextLink: RFC 8288 parsing: several links and field lines, quoted
// parameters, relation lists, only the first rel counting, and garbage.
func TestNextLink(t *testing.T) {
	for _, tc := range []struct {
		header []string
		want   string
	}{
		{[]string{`<https://api.test/r?page=2>; rel="next", <https://api.test/r?page=9>; rel="last"`}, "https://api.test/r?page=2"},
		{[]string{`<https://api.test/r?page=9>; rel="last"`, `<https://api.test/r?page=2>; rel="next"`}, "https://api.test/r?page=2"},
		{[]string{`<https://api.test/r?page=2>; rel="next last"`}, "https://api.test/r?page=2"},
		{[]string{`<https://api.test/r?page=2>; rel=next`}, "https://api.test/r?page=2"},
		{[]string{`<https://api.test/a,b;c>; title="x; rel=next, y"; rel="prev", </n>; REL="Next"`}, "/n"},
		{[]string{`<https://api.test/p>; rel="prev"; rel="next"`}, ""},
		{[]string{`<https://api.test/p>; title="unterminated`}, ""},
		{[]string{`garbage, <x>; rel=next`}, ""},
		{[]string{`<x>; rel="ne\"xt"`}, ""},
		{nil, ""},
	} {
		h := http.Header{"Link": tc.header}
		if got := NextLink(h); got != tc.want {
			t.Errorf("NextLink(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
	huge := strings.Repeat(`<x>; rel="prev", `, 100) + `<y>; rel="next"`
	if got := NextLink(http.Header{"Link": {huge}}); got != "" {
		t.Errorf("NextLink read past its 32 links: %q", got)
	}
}

// TestCursorHelpers: params fields to and from cursors, and JSONField.
func TestCursorHelpers(t *testing.T) {
	type status string
	var (
		s   *string
		n   *int64
		e   *status
		i32 int32
	)
	for _, set := range []struct {
		dst    any
		cursor string
	}{{&s, "tok"}, {&n, "42"}, {&e, "open"}, {&i32, "7"}} {
		if err := SetCursor(set.dst, set.cursor); err != nil {
			t.Fatal(err)
		}
		if got := ParamCursor(set.dst); got != set.cursor {
			t.Errorf("ParamCursor after SetCursor(%q) = %q", set.cursor, got)
		}
	}
	var untyped any
	if SetCursor(&untyped, "t") != nil || untyped != "t" || SetCursor(&untyped, "") != nil || untyped != nil {
		t.Errorf("SetCursor on an untyped parameter left %v", untyped)
	}
	if err := SetCursor(&n, "x"); err == nil {
		t.Error("SetCursor parsed x as an integer")
	}
	if err := SetCursor(&s, ""); err != nil || s != nil || ParamCursor(&s) != "" {
		t.Errorf("SetCursor(\"\") left %v, %v", s, err)
	}
	item := map[string]any{"id": "cus_1", "n": 12, "o": map[string]any{"k": "v"}}
	for path, want := range map[string]string{"id": "cus_1", "n": "12", "o.k": "v", "o": "", "missing": ""} {
		if got := JSONField(item, strings.Split(path, ".")...); got != want {
			t.Errorf("JSONField(%s) = %q, want %q", path, got, want)
		}
	}
}

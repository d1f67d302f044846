package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// catalog is what every test server pages through: 9 items, 3 per page.
var catalog = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}

type testItem struct {
	ID string `json:"id"`
}

// testPage is the body of every test kind; each kind reads the fields it
// names.
type testPage struct {
	Items      []testItem `json:"items"`
	NextCursor string     `json:"next_cursor,omitempty"`
	HasMore    *bool      `json:"has_more,omitempty"`
	Total      *int64     `json:"total,omitempty"`
	Links      struct {
		Next string `json:"next,omitempty"`
	} `json:"links"`
}

// pageKind is one way of paging through the catalog: how the server reads
// the page asked for and writes what comes next, and the Pager that reads it.
type pageKind struct {
	name  string
	kind  PageKind
	param string
	// index reads the page number (1, 2, 3) from the cursor parameter.
	index func(cursor string) int
	// write fills in the next-page information of page idx.
	write func(p *testPage, h http.Header, base string, idx int)
	// third is the cursor of page 3, as CursorOf must report it.
	third   func(base string) string
	next    func(*testPage, *http.Response) string
	hasMore func(*testPage) bool
	total   func(*testPage) (int64, bool)
}

func lastPage(idx int) bool { return idx*3 >= len(catalog) }

var pageKinds = []pageKind{
	{name: "cursor-field", kind: PageCursor, param: "cursor",
		index: func(c string) int { return max(1, atoiOr(strings.TrimPrefix(c, "c"), 1)) },
		write: func(p *testPage, _ http.Header, _ string, idx int) {
			if !lastPage(idx) {
				p.NextCursor = "c" + strconv.Itoa(idx+1)
			}
		},
		third: func(string) string { return "c3" },
		next:  func(p *testPage, _ *http.Response) string { return p.NextCursor }},
	{name: "last-item", kind: PageCursor, param: "starting_after",
		index: func(c string) int {
			if c == "" {
				return 1
			}
			return slices.Index(catalog, c)/3 + 2
		},
		write: func(p *testPage, _ http.Header, _ string, idx int) {
			more := !lastPage(idx)
			p.HasMore = &more
		},
		third: func(string) string { return "f" },
		next: func(p *testPage, _ *http.Response) string {
			if len(p.Items) == 0 {
				return ""
			}
			return p.Items[len(p.Items)-1].ID
		},
		hasMore: func(p *testPage) bool { return p.HasMore != nil && *p.HasMore }},
	{name: "offset", kind: PageOffset, param: "offset",
		index: func(c string) int { return atoiOr(c, 0)/3 + 1 },
		write: writeTotal,
		third: func(string) string { return "6" },
		total: readTotal},
	{name: "page", kind: PageNumber, param: "page",
		index: func(c string) int { return atoiOr(c, 1) },
		write: writeTotal,
		third: func(string) string { return "3" },
		total: readTotal},
	{name: "link-header", kind: PageLink,
		index: func(c string) int { return atoiOr(c, 1) },
		write: func(_ *testPage, h http.Header, base string, idx int) {
			if !lastPage(idx) {
				h.Add("Link", fmt.Sprintf(`<%s/list?page=%d>; rel="next", <%s/list?page=3>; rel="last"`, base, idx+1, base))
			}
		},
		third: func(base string) string { return base + "/list?page=3" }},
	{name: "body-next-url", kind: PageLink,
		index: func(c string) int { return atoiOr(c, 1) },
		write: func(p *testPage, _ http.Header, _ string, idx int) {
			if !lastPage(idx) {
				p.Links.Next = fmt.Sprintf("/list?page=%d", idx+1) // relative: resolved by the pager
			}
		},
		third: func(base string) string { return base + "/list?page=3" },
		next:  func(p *testPage, _ *http.Response) string { return p.Links.Next }},
}

func writeTotal(p *testPage, _ http.Header, _ string, _ int) {
	n := int64(len(catalog))
	p.Total = &n
}

func readTotal(p *testPage) (int64, bool) {
	if p.Total == nil {
		return 0, false
	}
	return *p.Total, true
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

// pageServer serves a pageKind on 127.0.0.1 and counts the requests of
// each page; fault decides, per page and hit, to answer "503", "cut" the
// connection, or serve the page (""); edit changes a page before it goes.
type pageServer struct {
	k     pageKind
	op    *Operation // listOp unless set
	srv   *httptest.Server
	mu    sync.Mutex
	hits  map[int]int
	fault func(idx, hit int) string
	edit  func(p *testPage, h http.Header, idx int)
}

func newPageServer(t *testing.T, k pageKind) *pageServer {
	s := &pageServer{k: k, hits: map[int]int{}}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *pageServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	param := s.k.param
	if param == "" {
		param = "page"
	}
	idx := s.k.index(r.URL.Query().Get(param))
	s.mu.Lock()
	s.hits[idx]++
	hit := s.hits[idx]
	s.mu.Unlock()
	switch s.fault(idx, hit) {
	case "503":
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	case "cut":
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	page := &testPage{Items: []testItem{}}
	for _, id := range catalog[min((idx-1)*3, len(catalog)):min(idx*3, len(catalog))] {
		page.Items = append(page.Items, testItem{id})
	}
	s.k.write(page, w.Header(), s.srv.URL, idx)
	if s.edit != nil {
		s.edit(page, w.Header(), idx)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(page)
}

func (s *pageServer) hitsOf(idx int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[idx]
}

func (s *pageServer) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += h
	}
	return n
}

var listOp = Operation{ID: "list", Method: "GET", Path: "/list", Safety: Idempotent, Retryable: DefaultRetryable}

// pager is what generated code would build for the server's kind.
func (s *pageServer) pager(r *Runner, opts ...CallOption) *Pager[testPage, testItem] {
	base, _ := url.Parse(s.srv.URL)
	return &Pager[testPage, testItem]{
		Kind: s.k.kind, Opts: opts,
		Fetch: func(ctx context.Context, cursor string, opts []CallOption) (*testPage, error) {
			u := *base
			u.Path = "/list"
			if s.k.param != "" && cursor != "" {
				u.RawQuery = url.Values{s.k.param: {cursor}}.Encode()
			}
			op := &listOp
			if s.op != nil {
				op = s.op
			}
			req := &Request{Method: op.Method, URL: &u, Server: base}
			if op.Method == "POST" {
				req.Body, req.Header = []byte(`{"q":"x"}`), http.Header{"Content-Type": {"application/json"}}
			}
			resp, err := r.Do(ctx, op, req, opts...)
			if err != nil {
				return nil, err
			}
			out := new(testPage)
			return out, DecodeJSON(resp, out)
		},
		ItemsOf: func(p *testPage) []testItem { return p.Items },
		Next:    s.k.next, HasMore: s.k.hasMore, Total: s.k.total,
	}
}

// drain runs an item iteration to its end: the ids received, and the error.
func drain(it func(yield func(testItem, error) bool)) ([]string, error) {
	var ids []string
	for item, err := range it {
		if err != nil {
			return ids, err
		}
		ids = append(ids, item.ID)
	}
	return ids, nil
}

// oneRetryRunner can pay for exactly one retry in all: the budget the
// whole iteration draws on. Its Transport keeps no idle connections, so a
// cut connection is never one net/http would quietly resend a GET on.
func oneRetryRunner(t *testing.T) *Runner {
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(&http.Client{Transport: tr}), WithClock(newFakeClock()),
		WithPolicy(Interactive, Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Timeout: -1}),
		WithBudget(Interactive, Budget{Capacity: 1, RetryCost: 1, TimeoutCost: 1}))
}

// TestPagerRetryAndResume: for every kind, three pages; page 2 answers 503
// once (retried: the server serves it twice, the caller sees its items
// once); page 3's connection is cut after the one retry the budget holds is
// spent, so the iteration ends with a PageError carrying page 3's cursor;
// resuming there yields exactly page 3's items.
func TestPagerRetryAndResume(t *testing.T) {
	for _, k := range pageKinds {
		t.Run(k.name, func(t *testing.T) {
			s := newPageServer(t, k)
			s.fault = func(idx, hit int) string {
				switch {
				case idx == 2 && hit == 1:
					return "503"
				case idx == 3 && hit == 1:
					return "cut"
				}
				return ""
			}
			r := oneRetryRunner(t)
			ids, err := drain(s.pager(r).Items(context.Background()))
			if want := catalog[:6]; !slices.Equal(ids, want) {
				t.Fatalf("items %v, want %v exactly once each", ids, want)
			}
			if n := s.hitsOf(2); n != 2 {
				t.Errorf("page 2 served %d times, want 2 (503, then the retry)", n)
			}
			var pe *PageError
			if !errors.As(err, &pe) || pe.Page != 3 || pe.Items != 6 {
				t.Fatalf("err = %v, want a *PageError on page 3 after 6 items", err)
			}
			if !errors.Is(err, ErrBudgetExhausted) {
				t.Errorf("err = %v, want ErrBudgetExhausted inside", err)
			}
			cursor, ok := CursorOf(err)
			if want := k.third(s.srv.URL); !ok || cursor != want {
				t.Fatalf("CursorOf = %q, %v; want %q", cursor, ok, want)
			}
			rest, err := drain(s.pager(r, WithCursor(cursor)).Items(context.Background()))
			if err != nil || !slices.Equal(rest, catalog[6:]) {
				t.Fatalf("resumed: %v, %v; want %v", rest, err, catalog[6:])
			}
		})
	}
}

// TestPagerPages: Pages hands out every page with its metadata, and stops
// at the last one.
func TestPagerPages(t *testing.T) {
	for _, k := range pageKinds {
		t.Run(k.name, func(t *testing.T) {
			s := newPageServer(t, k)
			s.fault = func(int, int) string { return "" }
			var n int
			for page, err := range s.pager(oneRetryRunner(t)).Pages(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				n += len(page.Items)
			}
			if n != len(catalog) || s.total() != 3 {
				t.Fatalf("%d items in %d requests, want %d in 3", n, s.total(), len(catalog))
			}
		})
	}
}

// TestPagerFillsCallersResponse: a WithResponse given to the iteration
// holds each page's response in turn, though the Pager reads them too.
func TestPagerFillsCallersResponse(t *testing.T) {
	s := newPageServer(t, pageKinds[0])
	s.fault = func(int, int) string { return "" }
	var resp *http.Response
	pages := 0
	for _, err := range s.pager(oneRetryRunner(t), WithResponse(&resp)).Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if resp == nil || resp.StatusCode != http.StatusOK || resp.Request == nil {
			t.Fatalf("page %d: caller's response %+v", pages, resp)
		}
		resp = nil
	}
	if pages != 3 {
		t.Fatalf("%d pages, want 3", pages)
	}
}

// TestPagerBreakStops: breaking out after the first item makes no second
// request.
func TestPagerBreakStops(t *testing.T) {
	for _, k := range pageKinds {
		t.Run(k.name, func(t *testing.T) {
			s := newPageServer(t, k)
			s.fault = func(int, int) string { return "" }
			for range s.pager(oneRetryRunner(t)).Items(context.Background()) {
				break
			}
			if s.total() != 1 {
				t.Fatalf("%d requests, want 1", s.total())
			}
		})
	}
}

// TestPagerPostSearchFollowsItsSafety: the pages of an unsafe POST search
// are not resent after a 503 (the request reached the server), so the
// iteration ends at page 2 with the server's status, and resuming at the
// cursor it reports yields the rest.
func TestPagerPostSearchFollowsItsSafety(t *testing.T) {
	s := newPageServer(t, kindNamed(t, "cursor-field"))
	s.op = &Operation{ID: "search", Method: "POST", Path: "/list", Safety: Unsafe, Retryable: DefaultRetryable}
	s.fault = func(idx, hit int) string {
		if idx == 2 && hit == 1 {
			return "503"
		}
		return ""
	}
	r := oneRetryRunner(t)
	ids, err := drain(s.pager(r).Items(context.Background()))
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable || !slices.Equal(ids, catalog[:3]) || s.hitsOf(2) != 1 {
		t.Fatalf("%v, %v after %d sends of page 2; want page 1, then the 503 of page 2 sent once", ids, err, s.hitsOf(2))
	}
	cursor, _ := CursorOf(err)
	rest, err := drain(s.pager(r, WithCursor(cursor)).Items(context.Background()))
	if err != nil || !slices.Equal(rest, catalog[3:]) {
		t.Fatalf("resumed at %q: %v, %v; want %v", cursor, rest, err, catalog[3:])
	}
}

// BenchmarkPagerItems measures what the Pager adds per page, without the
// network: a Fetch that returns a ready page of 100 items.
func BenchmarkPagerItems(b *testing.B) {
	var pages [10]*testPage // distinct items, as a real list's pages
	for i := range pages {
		pages[i] = &testPage{Items: make([]testItem, 100)}
		for j := range pages[i].Items {
			pages[i].Items[j].ID = strconv.Itoa(i*100 + j)
		}
	}
	for b.Loop() {
		n := 0
		p := &Pager[testPage, testItem]{
			Kind: PageOffset,
			Fetch: func(ctx context.Context, cursor string, opts []CallOption) (*testPage, error) {
				if n++; n > len(pages) {
					return &testPage{}, nil
				}
				return pages[n-1], nil
			},
			ItemsOf: func(p *testPage) []testItem { return p.Items },
		}
		for _, err := range p.Items(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

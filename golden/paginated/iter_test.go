package paginated_test

// Iteration tests of the generated paginated client against a loopback
// server: the generated Iter and Pages methods, the runtime's Pager and
// real connections, for the Stripe shape (the last item's id, has_more),
// the GitHub shape (a bare array and the Link header), a next URL in the
// body and offsets.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/paginated"
	"github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// ids is the data set every endpoint pages through.
var ids = []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7"}

// api serves the pages of ids, 3 at a time, counting the requests of each
// page (by its first item); fault, when set, answers a page's hit instead.
type api struct {
	srv   *httptest.Server
	mu    sync.Mutex
	hits  map[int]int
	fault func(first, hit int) string
	// link rewrites the next-page URL the server sends.
	link func(string) string
}

func (a *api) hit(w http.ResponseWriter, first int) bool {
	a.mu.Lock()
	a.hits[first]++
	n := a.hits[first]
	a.mu.Unlock()
	if a.fault == nil {
		return false
	}
	switch a.fault(first, n) {
	case "503":
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	case "cut":
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return true
	}
	return false
}

func (a *api) hitsOf(first int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[first]
}

func (a *api) requests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, h := range a.hits {
		n += h
	}
	return n
}

func (a *api) nextURL(u string) string {
	if a.link != nil {
		return a.link(u)
	}
	return u
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// startAPI serves the endpoints and returns a client that can pay for one
// retry in all, with a fake clock and no idle connections (so net/http
// never quietly resends a GET on a cut one).
func startAPI(t *testing.T) (*api, *paginated.Client) {
	a := &api{hits: map[int]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /customers", func(w http.ResponseWriter, r *http.Request) {
		from := slices.Index(ids, r.URL.Query().Get("starting_after")) + 1
		if a.hit(w, from) {
			return
		}
		to := min(from+3, len(ids))
		data := []map[string]string{}
		for _, id := range ids[from:to] {
			data = append(data, map[string]string{"id": id, "name": "n" + id})
		}
		writeJSON(w, map[string]any{"data": data, "has_more": to < len(ids)})
	})
	mux.HandleFunc("GET /repos", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		from := (page - 1) * 3
		if a.hit(w, from) {
			return
		}
		to := min(from+3, len(ids))
		if to < len(ids) {
			next := a.nextURL(fmt.Sprintf("%s/repos?page=%d&per_page=3", a.srv.URL, page+1))
			w.Header().Add("Link", fmt.Sprintf(`<%s>; rel="next", <%s/repos?page=3>; rel="last"`, next, a.srv.URL))
		}
		var repos []map[string]any
		for i, id := range ids[from:to] {
			repos = append(repos, map[string]any{"id": from + i, "full_name": id})
		}
		writeJSON(w, repos)
	})
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		from, _ := strconv.Atoi(r.URL.Query().Get("from"))
		if a.hit(w, from) {
			return
		}
		to := min(from+3, len(ids))
		links := map[string]string{}
		if to < len(ids) {
			links["next"] = a.nextURL(fmt.Sprintf("/search?q=x&from=%d", to))
		}
		writeJSON(w, map[string]any{"results": ids[from:to], "links": links})
	})
	mux.HandleFunc("GET /logs", func(w http.ResponseWriter, r *http.Request) {
		from, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		if a.hit(w, from) {
			return
		}
		writeJSON(w, map[string]any{"entries": ids[min(from, len(ids)):min(from+3, len(ids))], "total": len(ids)})
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	tr := &http.Transport{DisableKeepAlives: true}
	c, err := paginated.NewClient(a.srv.URL, idemrt.WithHTTPClient(&http.Client{Transport: tr}),
		idemrt.WithClock(testutil.NewFakeClock()), idemrt.WithRandom(func() float64 { return 0.5 }),
		idemrt.WithBudget(idemrt.Interactive, idemrt.Budget{Capacity: 1, RetryCost: 1, TimeoutCost: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}

// collect runs an iteration to its end: the values received and the error.
func collect[T any](seq func(yield func(T, error) bool), key func(T) string) ([]string, error) {
	var out []string
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, key(v))
	}
	return out, nil
}

// failPages2And3: page 2 answers 503 once (the one retry the budget
// holds), then page 3's connection is cut with the budget spent.
func failPages2And3(first, hit int) string {
	switch {
	case first == 3 && hit == 1:
		return "503"
	case first == 6 && hit == 1:
		return "cut"
	}
	return ""
}

// TestStripeShapedIter: ListCustomersIter pages by the last item's id;
// page 2's 503 is retried (served twice, its items seen once), page 3's
// cut ends the loop with a PageError whose cursor is page 2's last id, and
// resuming there yields exactly the rest.
func TestStripeShapedIter(t *testing.T) {
	a, c := startAPI(t)
	a.fault = failPages2And3
	limit := int64(3)
	params := paginated.ListCustomersParams{Limit: &limit}
	id := func(cu paginated.Customer) string { return cu.ID }
	got, err := collect(c.ListCustomersIter(context.Background(), params), id)
	if !slices.Equal(got, ids[:6]) || a.hitsOf(3) != 2 {
		t.Fatalf("items %v (page 2 served %d times), want %v once each and page 2 twice", got, a.hitsOf(3), ids[:6])
	}
	cursor, ok := idemrt.CursorOf(err)
	if !ok || cursor != "c6" || !errors.Is(err, idemrt.ErrBudgetExhausted) {
		t.Fatalf("err = %v, cursor %q; want a PageError at c6 after the budget ran out", err, cursor)
	}
	rest, err := collect(c.ListCustomersIter(context.Background(), params, idemrt.WithCursor(cursor)), id)
	if err != nil || !slices.Equal(rest, ids[6:]) {
		t.Fatalf("resumed: %v, %v; want %v", rest, err, ids[6:])
	}
}

// TestGitHubShapedIter: ListReposIter follows the Link header over a bare
// array body, with the same faults and resume.
func TestGitHubShapedIter(t *testing.T) {
	a, c := startAPI(t)
	a.fault = failPages2And3
	name := func(r paginated.Repo) string { return *r.FullName }
	got, err := collect(c.ListReposIter(context.Background(), paginated.ListReposParams{}), name)
	if !slices.Equal(got, ids[:6]) || a.hitsOf(3) != 2 {
		t.Fatalf("items %v (page 2 served %d times), want %v once each and page 2 twice", got, a.hitsOf(3), ids[:6])
	}
	cursor, _ := idemrt.CursorOf(err)
	if want := a.srv.URL + "/repos?page=3&per_page=3"; cursor != want {
		t.Fatalf("err = %v, cursor %q; want %q", err, cursor, want)
	}
	rest, err := collect(c.ListReposIter(context.Background(), paginated.ListReposParams{}, idemrt.WithCursor(cursor)), name)
	if err != nil || !slices.Equal(rest, ids[6:]) {
		t.Fatalf("resumed: %v, %v; want %v", rest, err, ids[6:])
	}
}

// TestGitHubShapedForeignLink: a Link header pointing at another host is
// refused before anything is sent to it.
func TestGitHubShapedForeignLink(t *testing.T) {
	a, c := startAPI(t)
	a.link = func(string) string { return "http://127.0.0.2:1/repos?page=2" }
	_, err := collect(c.ListReposIter(context.Background(), paginated.ListReposParams{}), func(r paginated.Repo) string { return "" })
	if !errors.Is(err, idemrt.ErrForeignNextLink) || a.requests() != 1 {
		t.Fatalf("err = %v after %d requests; want ErrForeignNextLink after 1", err, a.requests())
	}
}

// TestPagesAndOtherKinds: Pages of the body-URL and offset endpoints, and
// a break that stops the requests.
func TestPagesAndOtherKinds(t *testing.T) {
	a, c := startAPI(t)
	var got []string
	for page, err := range c.SearchPages(context.Background(), paginated.SearchParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Results...)
	}
	if !slices.Equal(got, ids) || a.requests() != 3 {
		t.Fatalf("search: %v in %d requests, want %v in 3", got, a.requests(), ids)
	}
	logs, err := collect(c.ListLogsIter(context.Background(), paginated.ListLogsParams{}), func(s string) string { return s })
	if err != nil || !slices.Equal(logs, ids) || a.requests() != 6 {
		t.Fatalf("logs: %v, %v in %d requests, want %v in 3 more", logs, err, a.requests(), ids)
	}
	for range c.ListLogsIter(context.Background(), paginated.ListLogsParams{}) {
		break
	}
	if a.requests() != 7 {
		t.Fatalf("a loop broken after its first item made %d requests, want 1", a.requests()-6)
	}
}

package mock_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

// startStateful serves a document with Options.Stateful.
func startStateful(t *testing.T, path string, limit int) *idemgenmock.TestServer {
	t.Helper()
	return idemgenmock.StartWith(t, path, idemgenmock.Options{Stateful: true, StateLimit: limit})
}

// object decodes a JSON object answer.
func object(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, b)
	}
	return m
}

// idsOf are the ids of the objects in a decoded list.
func idsOf(items any) []string {
	var out []string
	list, _ := items.([]any)
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["id"]))
		}
	}
	return out
}

const bearer = "Bearer t"

func createOrder(t *testing.T, base, key, note string) (*http.Response, map[string]any) {
	t.Helper()
	body := `{"customer_id":"3fa85f64-5717-4562-b3fc-2c963f66afa7","items":[{"sku":"SKU-` + note + `","quantity":2,"unit_price":5}],"note":"` + note + `"}`
	resp, b := do(t, http.MethodPost, base+"/orders", body, "Authorization", bearer, "Idempotency-Key", key)
	if resp.StatusCode != http.StatusCreated {
		return resp, nil
	}
	return resp, object(t, b)
}

// TestStatefulOrdersLifecycle: on orders.yaml a keyed create stores the
// order with the request's members, a replay of its key stores nothing
// more, the list pages by next_cursor, PUT replaces the editable members,
// DELETE removes (then GET is 404 in the mock's problem format), the limit
// refuses a create with 507, and a reset empties the store.
func TestStatefulOrdersLifecycle(t *testing.T) {
	srv := startStateful(t, "../testdata/specs/orders.yaml", 3)
	var ids []string
	for i, note := range []string{"one", "two", "three"} {
		resp, o := createOrder(t, srv.URL, fmt.Sprintf("key-%d", i), note)
		if o == nil || o["note"] != note || o["customer_id"] != "3fa85f64-5717-4562-b3fc-2c963f66afa7" {
			t.Fatalf("create %d: %d %v", i, resp.StatusCode, o)
		}
		if loc := resp.Header.Get("Location"); !strings.HasSuffix(loc, "/orders/"+o["id"].(string)) {
			t.Errorf("Location %q does not name order %v", loc, o["id"])
		}
		ids = append(ids, o["id"].(string))
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 3 {
		t.Fatalf("ids not distinct: %v", ids)
	}
	// A replay of the first key: the stored answer, no fourth order (the
	// limit of 3 would refuse one).
	resp, again := createOrder(t, srv.URL, "key-0", "one")
	if again == nil || again["id"] != ids[0] || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %v %v", resp.StatusCode, again, resp.Header)
	}
	if n := srv.Executions("createOrder"); n != 3 {
		t.Fatalf("createOrder executed %d times, want 3", n)
	}
	// Past the limit: 507, nothing stored.
	resp, _ = createOrder(t, srv.URL, "key-3", "four")
	if resp.StatusCode != http.StatusInsufficientStorage {
		t.Fatalf("fourth create: %d, want 507", resp.StatusCode)
	}
	listOrdersInPages(t, srv.URL, ids)
	replaceAndDelete(t, srv.URL, ids)

	resp, _ = do(t, http.MethodPost, srv.URL+idemgenmock.ResetPath, "")
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("reset: %d", resp.StatusCode)
	}
	if resp, _ := do(t, http.MethodGet, srv.URL+"/orders/"+ids[0], "", "Authorization", bearer); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET after reset: %d, want 404", resp.StatusCode)
	}
	_, b := do(t, http.MethodGet, srv.URL+"/orders", "", "Authorization", bearer)
	if got := idsOf(object(t, b)["data"]); len(got) != 0 {
		t.Fatalf("list after reset: %v", got)
	}
	if resp, o := createOrder(t, srv.URL, "key-4", "five"); o == nil {
		t.Fatalf("create after reset: %d", resp.StatusCode)
	}
}

// listOrdersInPages reads the list two by two, following next_cursor.
func listOrdersInPages(t *testing.T, base string, want []string) {
	t.Helper()
	var got []string
	pages := 0
	for cursor := ""; ; pages++ {
		u := base + "/orders?limit=2"
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		resp, b := do(t, http.MethodGet, u, "", "Authorization", bearer)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("list: %d %s", resp.StatusCode, b)
		}
		page := object(t, b)
		got = append(got, idsOf(page["data"])...)
		next, _ := page["next_cursor"].(string)
		if next == "" || pages > 5 {
			break
		}
		cursor = next
	}
	if !slices.Equal(got, want) || pages != 1 {
		t.Fatalf("listed %v in %d pages after the first, want %v in 1", got, pages, want)
	}
}

// replaceAndDelete: PUT keeps the id and the members OrderUpdate does not
// declare, and drops the declared ones not sent; DELETE removes.
func replaceAndDelete(t *testing.T, base string, ids []string) {
	t.Helper()
	resp, b := do(t, http.MethodPut, base+"/orders/"+ids[0], `{"status":"paid"}`, "Authorization", bearer, "If-Match", "*")
	o := object(t, b)
	if resp.StatusCode != http.StatusOK || o["id"] != ids[0] || o["status"] != "paid" || o["note"] != nil || o["customer_id"] == nil {
		t.Fatalf("PUT: %d %v", resp.StatusCode, o)
	}
	_, b = do(t, http.MethodGet, base+"/orders/"+ids[0], "", "Authorization", bearer)
	if got := object(t, b); got["status"] != "paid" || got["note"] != nil {
		t.Fatalf("GET after PUT: %v", got)
	}
	if resp, _ := do(t, http.MethodDelete, base+"/orders/"+ids[1], "", "Authorization", bearer); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	resp, b = do(t, http.MethodGet, base+"/orders/"+ids[1], "", "Authorization", bearer)
	if p := problemOf(t, b); resp.StatusCode != http.StatusNotFound || !strings.HasSuffix(p.Type, "#not-found") ||
		resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("GET after DELETE: %d %+v", resp.StatusCode, p)
	}
	// deleteOrder declares no 404 ("also when it was already gone"): a
	// repeated DELETE is its success again.
	if resp, _ := do(t, http.MethodDelete, base+"/orders/"+ids[1], "", "Authorization", bearer); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("second DELETE: %d", resp.StatusCode)
	}
	_, b = do(t, http.MethodGet, base+"/orders", "", "Authorization", bearer)
	if got := idsOf(object(t, b)["data"]); !slices.Equal(got, []string{ids[0], ids[2]}) {
		t.Fatalf("list after DELETE: %v", got)
	}
}

// TestStatefulOrdersMatchAndStateless: what orders.yaml's resources are,
// and which operations stay stateless, with why.
func TestStatefulOrdersMatchAndStateless(t *testing.T) {
	srv := startStateful(t, "../testdata/specs/orders.yaml", 0)
	want := []idemgenmock.Resource{
		{Collection: "/orders", Item: "/orders/{order_id}", ID: "id",
			Operations: []string{"createOrder", "deleteOrder", "getOrder", "listOrders", "updateOrder"}},
		{Collection: "/payments", Item: "/payments/{payment_id}", ID: "id", Operations: []string{"createPayment", "getPayment"}},
	}
	if got := srv.Resources(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("resources\n got %v\nwant %v", got, want)
	}
	var stateless []string
	for _, op := range srv.Stateless() {
		stateless = append(stateless, op.Operation+": "+op.Why)
	}
	wantStateless := []string{
		"getHealth: no item path /health/{id} beside it",
		"sendReceipt: no item path /orders/{order_id}/receipt/{id} beside it",
		"capturePayment: no item path /payments/{payment_id}/capture/{id} beside it",
	}
	if !slices.Equal(stateless, wantStateless) {
		t.Fatalf("stateless\n got %q\nwant %q", stateless, wantStateless)
	}
}

// TestStatefulConcurrentCreatesKeepTheLimit: 16 creates at once against a
// limit of 8 store exactly 8 orders, each under its own id.
func TestStatefulConcurrentCreatesKeepTheLimit(t *testing.T) {
	srv := startStateful(t, "../testdata/specs/orders.yaml", 8)
	var mu sync.Mutex
	codes := map[int]int{}
	ids := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, o := createOrder(t, srv.URL, fmt.Sprintf("c-%d", i), "n")
			mu.Lock()
			defer mu.Unlock()
			codes[resp.StatusCode]++
			if o != nil {
				ids[o["id"].(string)] = true
			}
		}()
	}
	wg.Wait()
	if codes[http.StatusCreated] != 8 || codes[http.StatusInsufficientStorage] != 8 || len(ids) != 8 {
		t.Fatalf("codes %v, %d distinct ids; want 8 created, 8 refused with 507", codes, len(ids))
	}
	_, b := do(t, http.MethodGet, srv.URL+"/orders?limit=100", "", "Authorization", bearer)
	if got := idsOf(object(t, b)["data"]); len(got) != 8 {
		t.Fatalf("listed %d orders, want 8", len(got))
	}
}

// TestStatefulPatchMerges: on openapi31.yaml (integer ids, a merge-patch
// body), PATCH changes the members sent and keeps the others; null clears
// a nullable member; an unknown id is 404.
func TestStatefulPatchMerges(t *testing.T) {
	srv := startStateful(t, "../testdata/specs/openapi31.yaml", 0)
	resp, b := do(t, http.MethodPost, srv.URL+"/notes", `{"text":"first","title":"T"}`, "Idempotency-Key", "n1")
	created := object(t, b)
	if resp.StatusCode != http.StatusCreated || created["id"] != 1.0 || created["title"] != "T" {
		t.Fatalf("create: %d %v", resp.StatusCode, created)
	}
	patch := func(id, body string) (*http.Response, map[string]any) {
		resp, b := do(t, http.MethodPatch, srv.URL+"/notes/"+id, body, "Content-Type", "application/merge-patch+json")
		if resp.StatusCode != http.StatusOK {
			return resp, nil
		}
		return resp, object(t, b)
	}
	if _, o := patch("1", `{"text":"second"}`); o == nil || o["text"] != "second" || o["title"] != "T" || o["id"] != 1.0 {
		t.Fatalf("patch text: %v", o)
	}
	if _, o := patch("1", `{"text":"third","title":null}`); o == nil || o["title"] != nil || o["created_at"] != created["created_at"] {
		t.Fatalf("patch title null: %v", o)
	}
	if resp, _ := patch("2", `{"text":"x"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("patch of an unknown note: %d", resp.StatusCode)
	}
	_, b = do(t, http.MethodGet, srv.URL+"/notes", "")
	var list []any
	json.Unmarshal(b, &list)
	if len(list) != 1 || list[0].(map[string]any)["text"] != "third" {
		t.Fatalf("list: %s", b)
	}
}

// pageStyle is how one list of testdata/stateful.yaml pages.
type pageStyle struct {
	list  string                                            // the list's path with its page size
	items func(any) any                                     // where the items are
	next  func(page any, h http.Header, last string) string // the next page's URL, "" at the end
}

// TestStatefulListsPageAsTheirContractsSay: five created things are read
// back, in creation order, two at a time, in the paging style each list
// declares: a cursor from the last item (has_more), an offset (total), a
// page number (total_count), the Link header, a next URL in the body.
func TestStatefulListsPageAsTheirContractsSay(t *testing.T) {
	srv := startStateful(t, "testdata/stateful.yaml", 0)
	field := func(path ...string) func(any) any {
		return func(v any) any {
			for _, k := range path {
				v = v.(map[string]any)[k]
			}
			return v
		}
	}
	styles := map[string]pageStyle{
		"/customers": {list: "/customers?limit=2", items: field("data"), next: func(p any, _ http.Header, last string) string {
			if p.(map[string]any)["has_more"] != true {
				return ""
			}
			return "/customers?limit=2&starting_after=" + last
		}},
		"/logs":  {list: "/logs?limit=2", items: field("entries"), next: offsetNext("/logs?limit=2&offset=", "total")},
		"/pages": {list: "/pages?per_page=2", items: field("pages"), next: pageNext("/pages?per_page=2&page=", "total_count")},
		"/repos": {list: "/repos?per_page=2", items: func(v any) any { return v }, next: func(_ any, h http.Header, _ string) string {
			link := h.Get("Link")
			if link == "" {
				return ""
			}
			return strings.TrimPrefix(strings.TrimSuffix(link, `>; rel="next"`), "<")
		}},
		"/search": {list: "/search?limit=2", items: field("results"), next: func(p any, _ http.Header, _ string) string {
			next, _ := field("links")(p).(map[string]any)["next"].(string)
			return next
		}},
	}
	for _, col := range sortedStyles(styles) {
		st := styles[col]
		var want []string
		for i := range 5 {
			body := fmt.Sprintf(`{"name":"%s-%d"}`, col, i)
			ct := "application/json"
			if col == "/customers" {
				body, ct = fmt.Sprintf("name=c-%d&meta[color]=red", i), "application/x-www-form-urlencoded"
			}
			resp, b := do(t, http.MethodPost, srv.URL+col, body, "Content-Type", ct)
			if resp.StatusCode/100 != 2 {
				t.Fatalf("create in %s: %d %s", col, resp.StatusCode, b)
			}
			want = append(want, fmt.Sprint(object(t, b)["id"]))
		}
		got, pages := readPages(t, srv.URL, st)
		if !slices.Equal(got, want) || pages != 3 {
			t.Errorf("%s: read %v in %d pages, want %v in 3", col, got, pages, want)
		}
	}
}

func sortedStyles(m map[string]pageStyle) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

func offsetNext(prefix, total string) func(any, http.Header, string) string {
	read := 0
	return func(p any, _ http.Header, _ string) string {
		m := p.(map[string]any)
		read += len(m["entries"].([]any))
		if float64(read) >= m[total].(float64) {
			return ""
		}
		return prefix + fmt.Sprint(read)
	}
}

func pageNext(prefix, total string) func(any, http.Header, string) string {
	page, read := 1, 0
	return func(p any, _ http.Header, _ string) string {
		m := p.(map[string]any)
		read += len(m["pages"].([]any))
		if float64(read) >= m[total].(float64) {
			return ""
		}
		page++
		return prefix + fmt.Sprint(page)
	}
}

// readPages follows a list's pages to the end; it returns the ids read and
// the number of pages.
func readPages(t *testing.T, base string, st pageStyle) ([]string, int) {
	t.Helper()
	var got []string
	u := base + st.list
	for pages := 1; pages <= 10; pages++ {
		resp, b := do(t, http.MethodGet, u, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
		}
		var page any
		json.Unmarshal(b, &page)
		ids := idsOf(st.items(page))
		got = append(got, ids...)
		next := st.next(page, resp.Header, ids[len(ids)-1])
		if next == "" {
			return got, pages
		}
		if !strings.HasPrefix(next, "http") {
			next = base + next
		}
		u = next
	}
	t.Fatalf("%s: more than 10 pages", st.list)
	return nil, 0
}

// TestStatefulFormCreateAndPostUpdate: a form create stores the form's
// members with the model's types, a POST on the item merges (Stripe's
// update), a cursor that names no item is 400; a list without ids in its
// items, a create nothing reads and a HEAD stay stateless.
func TestStatefulFormCreateAndPostUpdate(t *testing.T) {
	srv := startStateful(t, "testdata/stateful.yaml", 0)
	form := "application/x-www-form-urlencoded"
	_, b := do(t, http.MethodPost, srv.URL+"/customers", "name=ada&meta[color]=red", "Content-Type", form)
	id := object(t, b)["id"].(string)
	resp, b := do(t, http.MethodPost, srv.URL+"/customers/"+id, "meta[size]=3", "Content-Type", form)
	if o := object(t, b); resp.StatusCode != http.StatusOK || o["name"] != "ada" ||
		fmt.Sprint(o["meta"]) != "map[color:red size:3]" {
		t.Fatalf("update: %d %v", resp.StatusCode, o)
	}
	_, b = do(t, http.MethodGet, srv.URL+"/customers/"+id, "")
	if o := object(t, b); fmt.Sprint(o["meta"]) != "map[color:red size:3]" {
		t.Fatalf("GET after update: %v", o)
	}
	resp, b = do(t, http.MethodGet, srv.URL+"/customers?starting_after=nobody", "")
	if p := problemOf(t, b); resp.StatusCode != http.StatusBadRequest || !strings.HasSuffix(p.Type, "#bad-cursor") {
		t.Fatalf("unknown cursor: %d %+v", resp.StatusCode, p)
	}
	var stateless []string
	for _, op := range srv.Stateless() {
		stateless = append(stateless, op.Operation+": "+op.Why)
	}
	want := []string{
		`listTags: the items of its answer have no member "id"`,
		"createTag: no operation reads what it creates (GET /tags/{tag} or /tags)",
		"headTag: HEAD is not a resource operation on an item",
	}
	if !slices.Equal(stateless, want) {
		t.Fatalf("stateless\n got %q\nwant %q", stateless, want)
	}
}

// TestStatefulPageBoundsAreHostileProof: a page size, an offset or a page
// number near the largest integer is an empty page (or all items), never
// an overflow.
func TestStatefulPageBoundsAreHostileProof(t *testing.T) {
	srv := startStateful(t, "testdata/stateful.yaml", 0)
	for _, col := range []string{"/logs", "/pages"} {
		do(t, http.MethodPost, srv.URL+col, `{"name":"x"}`)
	}
	const huge = "9223372036854775807"
	for _, u := range []string{
		"/logs?limit=" + huge, "/logs?limit=" + huge + "&offset=" + huge, "/logs?offset=" + huge,
		"/pages?per_page=" + huge + "&page=" + huge, "/pages?page=" + huge, "/pages?per_page=2&page=" + huge,
	} {
		resp, b := do(t, http.MethodGet, srv.URL+u, "")
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
		}
	}
}

// TestStatefulDeleteAnswerNamesTheResource: a DELETE whose answer carries
// the id member (Stripe's deleted object) names the deleted resource.
func TestStatefulDeleteAnswerNamesTheResource(t *testing.T) {
	srv := startStateful(t, "testdata/stateful.yaml", 0)
	_, b := do(t, http.MethodPost, srv.URL+"/search", `{"name":"x"}`)
	id := object(t, b)["id"].(string)
	resp, b := do(t, http.MethodDelete, srv.URL+"/search/"+id, "")
	if o := object(t, b); resp.StatusCode != http.StatusOK || o["id"] != id || o["deleted"] != true {
		t.Fatalf("DELETE: %d %v", resp.StatusCode, o)
	}
}

package mock_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// TestStatefulListFilters: a list's query parameter named like a scalar
// member of the resource (orders.yaml's status=a&status=b) selects the
// stored orders whose member is one of its values, pages within them, and
// selects none for a value no order holds; parameters that name no member
// (ids, the deepObject filter) are not applied.
func TestStatefulListFilters(t *testing.T) {
	srv := startStateful(t, "../testdata/specs/orders.yaml", 10)
	var ids []string
	var first string
	for i, note := range []string{"one", "two", "three"} {
		resp, o := createOrder(t, srv.URL, fmt.Sprintf("key-%d", i), note)
		if o == nil {
			t.Fatalf("create %d: %d", i, resp.StatusCode)
		}
		ids = append(ids, o["id"].(string))
		first, _ = o["status"].(string)
	}
	other := "paid"
	if first == other {
		other = "shipped"
	}
	if resp, b := do(t, http.MethodPut, srv.URL+"/orders/"+ids[1], `{"status":"`+other+`"}`, "Authorization", bearer, "If-Match", "*"); resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d %s", resp.StatusCode, b)
	}
	list := func(query string) []string {
		t.Helper()
		resp, b := do(t, http.MethodGet, srv.URL+"/orders?"+query, "", "Authorization", bearer)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /orders?%s: %d %s", query, resp.StatusCode, b)
		}
		return idsOf(object(t, b)["data"])
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"status=" + other, ids[1:2]},
		{"status=" + first, []string{ids[0], ids[2]}},
		{"status=" + first + "&status=" + other, ids},
		{"status=cancelled", nil},
		{"", ids},
		{"ids=" + url.QueryEscape(ids[0]) + "&filter%5Bstatus%5D=" + other, ids},
		{"status=" + first + "&limit=1", ids[:1]},
	} {
		if got := list(c.query); !slices.Equal(got, c.want) {
			t.Errorf("?%s: %v, want %v", c.query, got, c.want)
		}
	}
}

// TestStatefulListFilterManyValues: a query that repeats a filter 20,000
// times (about 300 KB of URL) is answered, and selects by the one value
// that matches: the values are a set, read once.
func TestStatefulListFilterManyValues(t *testing.T) {
	srv := startStateful(t, "../testdata/specs/orders.yaml", 10)
	resp, o := createOrder(t, srv.URL, "key-many", "many")
	if o == nil || o["status"] == "cancelled" {
		t.Fatalf("create: %d %v", resp.StatusCode, o)
	}
	q := url.Values{}
	for range 20000 {
		q.Add("status", "cancelled")
	}
	q.Add("status", o["status"].(string))
	resp, b := do(t, http.MethodGet, srv.URL+"/orders?"+q.Encode(), "", "Authorization", bearer)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %.300s", resp.StatusCode, b)
	}
	if got := idsOf(object(t, b)["data"]); !slices.Equal(got, []string{o["id"].(string)}) {
		t.Fatalf("listed %v, want the one order", got)
	}
}

package annotate

import (
	"strings"
	"testing"
)

func listPage(method, path string) []Member {
	if method != "GET" || path != "/customers" {
		return nil
	}
	return []Member{{"kind", "cursor"}, {"param", "starting_after"}, {"lastItem", "id"}, {"items", "data"}, {"hasMore", "has_more"}, {"limit", "a: b"}}
}

// TestAnnotatePagination: the x-pagination values the caller passes are
// spliced in every layout, beside x-idempotent, only where neither the
// operation nor its path item has one, and they read back.
func TestAnnotatePagination(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"block": {
			"paths:\n  /customers:\n    get:\n      summary: x\n",
			"paths:\n  /customers:\n    get:\n      x-idempotent: true\n      x-pagination: {kind: cursor, param: starting_after, lastItem: id, items: data, hasMore: has_more, limit: \"a: b\"}\n      summary: x\n",
		},
		"idempotent already": {
			"paths:\n  /customers:\n    x-idempotent: true\n    get: {summary: x}\n",
			"paths:\n  /customers:\n    x-idempotent: true\n    get: {x-pagination: {kind: cursor, param: starting_after, lastItem: id, items: data, hasMore: has_more, limit: \"a: b\"}, summary: x}\n",
		},
		"json": {
			`{"paths": {"/customers": {"get": {"x-idempotent": true}}}}`,
			`{"paths": {"/customers": {"get": {"x-pagination": {"kind": "cursor", "param": "starting_after", "lastItem": "id", "items": "data", "hasMore": "has_more", "limit": "a: b"}, "x-idempotent": true}}}}`,
		},
		"path item has one": {
			"paths:\n  /customers:\n    x-pagination: false\n    get:\n      x-idempotent: true\n",
			"paths:\n  /customers:\n    x-pagination: false\n    get:\n      x-idempotent: true\n",
		},
	}
	for name, c := range cases {
		res, err := Options{Pagination: listPage}.Annotate([]byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := string(res.Annotated); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", name, got, c.want)
		}
	}
	res, _ := Options{Pagination: listPage}.Annotate([]byte(cases["block"].src))
	ov := string(res.Overlay("t", ""))
	if !strings.Contains(ov, "    update:\n      x-pagination:\n        kind: \"cursor\"\n") {
		t.Errorf("overlay:\n%s", ov)
	}
}

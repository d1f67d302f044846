package annotate

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

func refundLookup(method, path string) *Lookup {
	if method != "POST" || path != "/refunds" {
		return nil
	}
	return &Lookup{OperationID: "listRefunds", In: "query", Name: "client_reference", Found: "/data/0"}
}

// TestAnnotateLookup: the lookup the caller passes is spliced in as
// x-lookup in every layout, beside x-idempotent, only where the operation
// has none; it reads back, and the overlay carries it.
func TestAnnotateLookup(t *testing.T) {
	const value = "{operationId: listRefunds, key: {in: query, name: client_reference}, found: /data/0}"
	cases := map[string]struct{ src, want string }{
		"block": {
			"paths:\n  /refunds:\n    post:\n      x-idempotent: false\n      summary: x\n",
			"paths:\n  /refunds:\n    post:\n      x-lookup: " + value + "\n      x-idempotent: false\n      summary: x\n",
		},
		"flow": {
			"paths:\n  /refunds:\n    post: {x-idempotent: false, summary: x}\n",
			"paths:\n  /refunds:\n    post: {x-lookup: " + value + ", x-idempotent: false, summary: x}\n",
		},
		"json": {
			`{"paths": {"/refunds": {"post": {"x-idempotent": false}}}}`,
			`{"paths": {"/refunds": {"post": {"x-lookup": {"operationId": "listRefunds", "key": {"in": "query", "name": "client_reference"}, "found": "/data/0"}, "x-idempotent": false}}}}`,
		},
		"compact json": {
			`{"paths":{"/refunds":{"post":{"x-idempotent":false}}}}`,
			`{"paths":{"/refunds":{"post":{"x-lookup":{"operationId":"listRefunds","key":{"in":"query","name":"client_reference"},"found":"/data/0"},"x-idempotent":false}}}}`,
		},
		"has one": {
			"paths:\n  /refunds:\n    post:\n      x-idempotent: false\n      x-lookup: {}\n",
			"paths:\n  /refunds:\n    post:\n      x-idempotent: false\n      x-lookup: {}\n",
		},
	}
	for name, c := range cases {
		res, err := Options{Lookup: refundLookup}.Annotate([]byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := string(res.Annotated); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", name, got, c.want)
		}
	}
	res, _ := Options{Lookup: refundLookup}.Annotate([]byte(cases["block"].src))
	if len(res.Lookups) != 1 || res.Lookups[0].Line != 4 {
		t.Errorf("Lookups = %+v, want one edit at line 4 (the operation)", res.Lookups)
	}
	ov := res.Overlay("t", "")
	if !strings.Contains(string(ov), "    update:\n      x-lookup:\n        operationId: \"listRefunds\"\n        key: {in: \"query\", name: \"client_reference\"}\n        found: \"/data/0\"\n") {
		t.Errorf("overlay:\n%s", ov)
	}
	var doc any
	if err := yaml.Unmarshal(ov, &doc); err != nil {
		t.Errorf("overlay is not YAML: %v", err)
	}
}

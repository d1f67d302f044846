package annotate

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

func paymentWaiters(method, path string) []Waiter {
	if method != "GET" || path != "/payments/{id}" {
		return nil
	}
	return []Waiter{{Name: "PaymentSucceeded", Field: "status", Until: []string{"succeeded"}, FailOn: []string{"failed", "true"}}}
}

// TestAnnotateWaiters: the waiters the caller passes are spliced in as
// x-waiters in every layout, beside x-idempotent, only where the operation
// has none, they read back, and the overlay carries them.
func TestAnnotateWaiters(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"block": {
			"paths:\n  /payments/{id}:\n    get:\n      summary: x\n",
			"paths:\n  /payments/{id}:\n    get:\n      x-idempotent: true\n      x-waiters: [{name: PaymentSucceeded, until: {field: status, in: [succeeded]}, failOn: {field: status, in: [failed, \"true\"]}}]\n      summary: x\n",
		},
		"flow": {
			"paths:\n  /payments/{id}:\n    get: {x-idempotent: true, summary: x}\n",
			"paths:\n  /payments/{id}:\n    get: {x-waiters: [{name: PaymentSucceeded, until: {field: status, in: [succeeded]}, failOn: {field: status, in: [failed, \"true\"]}}], x-idempotent: true, summary: x}\n",
		},
		"json": {
			`{"paths": {"/payments/{id}": {"get": {"x-idempotent": true}}}}`,
			`{"paths": {"/payments/{id}": {"get": {"x-waiters": [{"name": "PaymentSucceeded", "until": {"field": "status", "in": ["succeeded"]}, "failOn": {"field": "status", "in": ["failed", "true"]}}], "x-idempotent": true}}}}`,
		},
		"compact json": {
			`{"paths":{"/payments/{id}":{"get":{"x-idempotent":true}}}}`,
			`{"paths":{"/payments/{id}":{"get":{"x-waiters":[{"name":"PaymentSucceeded","until":{"field":"status","in":["succeeded"]},"failOn":{"field":"status","in":["failed","true"]}}],"x-idempotent":true}}}}`,
		},
		"has one": {
			"paths:\n  /payments/{id}:\n    get:\n      x-idempotent: true\n      x-waiters: []\n",
			"paths:\n  /payments/{id}:\n    get:\n      x-idempotent: true\n      x-waiters: []\n",
		},
	}
	for name, c := range cases {
		res, err := Options{Waiters: paymentWaiters}.Annotate([]byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := string(res.Annotated); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", name, got, c.want)
		}
	}
	res, _ := Options{Waiters: paymentWaiters}.Annotate([]byte(cases["block"].src))
	if len(res.Waiters) != 1 || res.Waiters[0].Line != 4 {
		t.Errorf("Waiters = %+v, want one edit at line 4 (the operation)", res.Waiters)
	}
	ov := res.Overlay("t", "")
	if !strings.Contains(string(ov), "    update:\n      x-waiters:\n        - name: \"PaymentSucceeded\"\n          until: {field: \"status\", in: [\"succeeded\"]}\n") {
		t.Errorf("overlay:\n%s", ov)
	}
	var doc any
	if err := yaml.Unmarshal(ov, &doc); err != nil {
		t.Errorf("overlay is not YAML: %v", err)
	}
}

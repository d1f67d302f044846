package specdiff

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

const casesDir = "../testdata/diff"

// load parses one spec of testdata/diff, failing on any error.
func load(t *testing.T, name string) *ir.API {
	t.Helper()
	api, diags, err := parser.Load(filepath.Join(casesDir, name), parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("%s: %v %v", name, err, diags.Errors())
	}
	return api
}

// summary writes each change as "rule Operation" with "!" before a
// breaking one.
func summary(cs []Change) []string {
	var out []string
	for _, c := range cs {
		s := c.Rule
		if c.Breaking {
			s = "!" + s
		}
		if c.Operation != "" {
			s += " " + c.Operation
		}
		out = append(out, s)
	}
	return out
}

// diffCases pairs each NEW of testdata/diff with what Compare must find
// against base.yaml (or against <case>.old.yaml when there is one): every
// change, breaking ones marked "!", in report order.
var diffCases = map[string][]string{
	"key-removed":       {"!key-removed createOrder"},
	"key-moved":         {"!key-moved createOrder"},
	"key-added":         {"!key-added cancelOrder"},
	"became-unsafe":     {"!became-unsafe deleteOrder"},
	"became-idempotent": {"became-idempotent cancelOrder"},
	"key-dropped":       {"key-dropped createOrder"},
	// The unsafe cancelOrder resends on 429 only: 500 and 502 change
	// nothing for it.
	"retryable-added":   {"!retryable-added createOrder", "!retryable-added deleteOrder", "!retryable-added listOrders", "!retryable-added replaceOrder"},
	"retryable-removed": {"!retryable-removed listOrders"},
	"retryable-unsafe":  {"!retryable-removed cancelOrder"},
	"if-match-required": {"!if-match-required replaceOrder"},
	"if-match-added":    {"!if-match-required deleteOrder"},

	"operation-removed": {"!operation-removed deleteOrder"},
	"operation-renamed": {"!identity-changed removeOrder", "!operation-renamed removeOrder"},
	// createOrder on a second binding: both are named by their binding now.
	"identity-changed":       {"!identity-changed POST /orders", "operation-added POST /v2/orders"},
	"operation-added":        {"operation-added getOrder"},
	"param-removed":          {"!param-removed listOrders"},
	"param-added-required":   {"!param-added-required listOrders"},
	"param-added":            {"param-added listOrders"},
	"param-required":         {"!param-required listOrders"},
	"param-type":             {"!param-type listOrders"},
	"param-optional":         {"param-optional listOrders"},
	"param-optional-type":    {"!param-optional listOrders"},
	"param-renamed":          {"!param-renamed cancelOrder"},
	"body-added":             {"!body-added deleteOrder", "type-added"},
	"body-removed":           {"!body-removed replaceOrder"},
	"body-required":          {"!body-required replaceOrder"},
	"body-optional":          {"!body-optional createOrder"},
	"media-type-removed":     {"!media-type-removed createOrder", "media-type-added createOrder"},
	"media-type-added":       {"media-type-added listOrders"},
	"response-removed":       {"!response-removed createOrder", "response-added createOrder"},
	"error-response-removed": {"error-response-removed createOrder"},
	"response-type":          {"!type-changed listOrders"},
	"member-removed":         {"!member-removed"},
	"member-type":            {"!type-changed"},
	"member-added":           {"member-added"},
	"member-added-required":  {"!member-added-required"},
	"member-required":        {"!member-required"},
	"member-optional-type":   {"!member-optional"},
	"member-optional":        {"member-optional"},
	"enum-value-removed":     {"!enum-value-removed"},
	"enum-value-added":       {"enum-value-added"},
	"type-removed":           {"!type-removed", "!type-renamed createOrder", "!type-renamed replaceOrder", "type-added"},
	"type-shape":             {"!type-changed"},
	"variant-removed":        {"!variant-removed"},
	"variant-added":          {"variant-added", "type-added"},
	// The same API written another way: nothing a client sees changed.
	"respelled": nil,
}

// TestRules: each hand-written pair of testdata/diff yields exactly the
// changes listed, no more.
func TestRules(t *testing.T) {
	base := load(t, "base.yaml")
	for name, want := range diffCases {
		t.Run(name, func(t *testing.T) {
			old := base
			if _, err := os.Stat(filepath.Join(casesDir, name+".old.yaml")); err == nil {
				old = load(t, name+".old.yaml")
			}
			got := Compare(old, load(t, name+".yaml"))
			if s := summary(got); !slices.Equal(s, want) || testing.Verbose() {
				for _, c := range got {
					t.Logf("%s:%d %s %s", c.At.File, c.At.Line, c.Pointer, c.Message)
				}
				t.Errorf("got %q\nwant %q", s, want)
			}
			if Breaking(got) != slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, "!") }) {
				t.Errorf("Breaking = %v", Breaking(got))
			}
		})
	}
}

// TestEveryCaseHasAPair: each case names a file, and each file is a case.
func TestEveryCaseHasAPair(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(casesDir, "*.yaml"))
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".yaml"), ".old")
		if _, ok := diffCases[name]; !ok && name != "base" {
			t.Errorf("%s is in no case", f)
		}
	}
}

// TestImports: the comparison reads the IR only.
func TestImports(t *testing.T) {
	testutil.CheckImports(t, "github.com/idemgen/idemgen/ir", "github.com/idemgen/idemgen/internal/jsonpointer")
}

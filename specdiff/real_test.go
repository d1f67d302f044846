package specdiff

import (
	"os"
	"slices"
	"testing"

	"github.com/idemgen/idemgen/harness/specpairs"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// need skips the test when a pair's documents cannot be had, except under
// CI=true, where it fails: CI must run it.
func need(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(err)
	}
	t.Skip(err)
}

func loadReal(t *testing.T, path string) *ir.API {
	t.Helper()
	api, diags, err := parser.Load(path, parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("%s: %v %v", path, err, diags.Errors())
	}
	return api
}

// rules counts changes by rule, breaking ones under "!rule".
func rules(cs []Change) map[string]int {
	out := map[string]int{}
	for _, s := range summary(cs) {
		rule, _, _ := cut(s)
		out[rule]++
	}
	return out
}

func cut(s string) (string, string, bool) {
	for i := range s {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// checkReal holds for every real pair: the report is the same twice, every
// change is located in NEW with a line, and a change of something gone
// names its line in OLD.
func checkReal(t *testing.T, old, new *ir.API) []Change {
	t.Helper()
	cs := Compare(old, new)
	if again := Compare(old, new); !slices.Equal(cs, again) {
		t.Error("two comparisons differ")
	}
	for _, c := range cs {
		if c.At.File == "" || c.At.Line == 0 || c.Pointer == "" || c.Message == "" {
			t.Errorf("not located: %+v", c)
		}
		if c.Was.File != "" && c.Was.Line == 0 {
			t.Errorf("OLD not located: %+v", c)
		}
	}
	return cs
}

// TestRealPairs judges diff on real documents: stripe-mock's spec3.json at
// two releases (2022-11-15 and 2026-08-26 APIs), Stripe's 2023-08-16
// document of ../shared/specs against the newer release, and
// petstore-expanded.yaml against a copy with five known edits. The Stripe
// documents carry no retry contract (every POST is unsafe in both), so
// their changes are all Go surface; the petstore edits are found exactly.
func TestRealPairs(t *testing.T) {
	shared := testutil.RealSpecs(t, "loads three Stripe documents")
	t.Run("petstore", func(t *testing.T) {
		p, err := specpairs.Petstore(shared, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		got := summary(checkReal(t, loadReal(t, p.Old), loadReal(t, p.New)))
		// The root list reaches every operation the old client resends
		// (deletePet is read as the old client reads it, idempotent); a tag
		// required in NewPet is required in Pet too (its allOf), where the
		// field turns from *string into string.
		want := []string{
			"!retryable-added addPet", "!retryable-added deletePet", "!retryable-added find pet by id", "!retryable-added findPets",
			"!key-moved addPet", "!became-unsafe deletePet", "!param-type findPets", "!member-required", "!member-required",
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
	p, err := specpairs.Stripe()
	need(t, err)
	newest := loadReal(t, p.New)
	t.Run("stripe-mock", func(t *testing.T) {
		cs := checkReal(t, loadReal(t, p.Old), newest)
		checkStripe(t, cs, "GetInvoicesUpcoming", "PostSubscriptionItemsSubscriptionItemUsageRecords")
	})
	t.Run("shared-stripe", func(t *testing.T) {
		s, err := specpairs.StripeShared(shared)
		need(t, err)
		cs := checkReal(t, loadReal(t, s.Old), newest)
		checkStripe(t, cs, "GetInvoicesUpcoming", "GetIssuingSettlements")
	})
}

// checkStripe: Stripe's changes between versions are Go surface only, and
// include the removal of endpoints Stripe retired (upcoming invoices, usage
// records, issuing settlements).
func checkStripe(t *testing.T, cs []Change, removed ...string) {
	t.Helper()
	byRule := rules(cs)
	t.Logf("%d changes, %d breaking: %v", len(cs), len(breakingOnly(cs)), byRule)
	for _, c := range cs {
		if c.Area == AreaContract {
			t.Errorf("a contract change between unannotated documents: %+v", c)
		}
	}
	for _, r := range []string{"!operation-removed", "!member-removed", "!type-changed", "!enum-value-removed", "operation-added", "member-added", "enum-value-added"} {
		if byRule[r] == 0 {
			t.Errorf("no %s", r)
		}
	}
	gone := map[string]bool{}
	for _, c := range cs {
		if c.Rule == "operation-removed" {
			gone[c.Operation] = true
		}
	}
	for _, op := range removed {
		if !gone[op] {
			t.Errorf("%s is not reported removed", op)
		}
	}
}

func breakingOnly(cs []Change) []Change {
	var out []Change
	for _, c := range cs {
		if c.Breaking {
			out = append(out, c)
		}
	}
	return out
}

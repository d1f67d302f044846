package parser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
)

// TestLookupIR reads testdata/specs/lookup.yaml: each x-lookup resolves to
// its lookup operation and that operation's key parameter, with the found
// pointer as written ("" when absent), the body member that holds the key
// and the default match (that member, in the found value), and an
// operation without x-lookup has none.
func TestLookupIR(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "testdata", "specs", "lookup.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	api, diags, err := LoadData("lookup.yaml", data, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("LoadData: %v %v", err, diags.Errors())
	}
	ops := map[string]*ir.Operation{}
	for _, op := range api.Operations {
		ops[op.ID] = op
	}
	for id, want := range map[string]struct{ target, in, key, found, member, match string }{
		"createPayment": {"listPayments", "query", "client_reference", "/data/0", "client_reference", "/client_reference"},
		"createRefund":  {"getRefundByReference", "path", "reference", "", "reference", "/reference"},
	} {
		lk := ops[id].Lookup
		if lk == nil {
			t.Errorf("%s: no lookup", id)
			continue
		}
		if lk.Operation != ops[want.target] || lk.Key == nil || string(lk.Key.In) != want.in || lk.Key.Name != want.key || lk.Found != want.found {
			t.Errorf("%s: lookup %s %+v found %q, want %+v", id, lk.Operation.ID, lk.Key, lk.Found, want)
		}
		if lk.Member != want.member || lk.Match != want.match {
			t.Errorf("%s: member %q, match %q; want %q, %q", id, lk.Member, lk.Match, want.member, want.match)
		}
		if lk.Key != nil && !containsParam(lk.Operation.Params, lk.Key) {
			t.Errorf("%s: the key is not a parameter of %s", id, lk.Operation.ID)
		}
	}
	if ops["capturePayment"].Lookup != nil || ops["listPayments"].Lookup != nil {
		t.Error("an operation without x-lookup has a lookup")
	}
}

func containsParam(ps []*ir.Parameter, p *ir.Parameter) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

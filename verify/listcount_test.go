package verify

import (
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestListOperation: the GET on a create's collection path counts its
// executions; the GET beside an update of one item does not.
func TestListOperation(t *testing.T) {
	create := &ir.Operation{ID: "create", Method: "POST", Path: "/things", Retry: ir.RetryContract{Safety: ir.Keyed}}
	list := &ir.Operation{ID: "list", Method: "GET", Path: "/things", Retry: ir.RetryContract{Safety: ir.Idempotent}}
	update := &ir.Operation{ID: "update", Method: "POST", Path: "/things/{id}", Retry: ir.RetryContract{Safety: ir.Keyed}}
	get := &ir.Operation{ID: "get", Method: "GET", Path: "/things/{id}", Retry: ir.RetryContract{Safety: ir.Idempotent}}
	v := &verifier{api: &ir.API{Operations: []*ir.Operation{create, get, list, update}}}
	if got := (&opCheck{v: v, op: create}).listOperation(); got != list {
		t.Errorf("create: %v, want list", got)
	}
	if got := (&opCheck{v: v, op: update}).listOperation(); got != nil {
		t.Errorf("update: %v, want none", got.ID)
	}
}

func TestCountItems(t *testing.T) {
	cases := []struct {
		body string
		p    *ir.Pagination
		n    int
		ok   bool
	}{
		{`[1,2]`, nil, 2, true},
		{`{"data":[1],"other":[1,2]}`, nil, 1, true},
		{`{"page":{"things":[1,2,3]}}`, &ir.Pagination{Items: ir.Field{"page", "things"}}, 3, true},
		{`{"a":[1],"b":[2]}`, nil, 0, false},
		{`{"id":"x"}`, nil, 0, false},
		{`not json`, nil, 0, false},
	}
	for _, c := range cases {
		if n, ok := countItems([]byte(c.body), c.p); n != c.n || ok != c.ok {
			t.Errorf("%s: %d %v, want %d %v", c.body, n, ok, c.n, c.ok)
		}
	}
}

package runtime

import (
	"context"
	"net/http"
	"testing"
)

// TestOperationOfInEditors: an editor sees the operation of the call it runs
// for, on every attempt, and nothing outside a call.
func TestOperationOfInEditors(t *testing.T) {
	securedOp := Operation{ID: "getThing", Method: "GET", Path: "/things/1", Safety: Idempotent,
		Retryable: DefaultRetryable, Security: []string{"apiKey", "bearerAuth"}}
	var seen []*Operation
	edit := func(ctx context.Context, r *http.Request) error {
		op := OperationOf(ctx)
		seen = append(seen, op)
		if op.Uses("bearerAuth") {
			r.Header.Set("Authorization", "Bearer secret")
		}
		return nil
	}
	d := &fakeDoer{script: []step{answer(503), ok200, ok200}}
	r := newTestRunner(d, newFakeClock(), WithRequestEditor(edit))
	if _, err, _ := doCall(t, r, &securedOp, ""); err != nil {
		t.Fatal(err)
	}
	if _, err, _ := doCall(t, r, &idempotentOp, ""); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[0] != &securedOp || seen[1] != &securedOp || seen[2] != &idempotentOp {
		t.Fatalf("editors saw %v", seen)
	}
	got := []string{d.reqs[0].Header.Get("Authorization"), d.reqs[1].Header.Get("Authorization"), d.reqs[2].Header.Get("Authorization")}
	if got[0] != "Bearer secret" || got[1] != "Bearer secret" || got[2] != "" {
		t.Fatalf("Authorization per request: %q", got)
	}
	if OperationOf(context.Background()) != nil {
		t.Fatal("OperationOf outside a call is not nil")
	}
}

// TestUses: a nil operation and one without Security use no scheme.
func TestUses(t *testing.T) {
	var none *Operation
	op := &Operation{Security: []string{"basic"}}
	if none.Uses("basic") || (&Operation{}).Uses("basic") || !op.Uses("basic") || op.Uses("bearer") {
		t.Fatal("Uses")
	}
}

// TestOperationOfDoesNotAllocate keeps the authentication editors free on
// the happy path.
func TestOperationOfDoesNotAllocate(t *testing.T) {
	c := &call{op: &idempotentOp}
	c.ctx = callContext{Context: context.Background(), call: c}
	ctx := context.WithValue(&c.ctx, struct{ k int }{1}, "v")
	if n := testing.AllocsPerRun(100, func() {
		if !OperationOf(ctx).Uses("x") && OperationOf(ctx) == nil {
			t.Fatal("no operation")
		}
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

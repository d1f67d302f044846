package runtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestBudgetDrainAndRefill: retries stop when the bucket is empty, and
// healthy answers earn them back.
func TestBudgetDrainAndRefill(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503)}}
	r := newTestRunner(d, newFakeClock(), WithBudget(Interactive, Budget{Capacity: 3, RetryCost: 1, TimeoutCost: 2, SuccessRefill: 0.5}))
	// First call: 2 retries (3 attempts), 1 token left.
	if _, err, log := doCall(t, r, &idempotentOp, ""); !errors.Is(err, ErrAttemptsExhausted) || len(log) != 3 {
		t.Fatalf("first call: %v after %d attempts", err, len(log))
	}
	if left := r.BudgetLeft(Interactive); left != 1 {
		t.Fatalf("budget left %v, want 1", left)
	}
	// Second call: 1 retry, then the bucket is empty.
	_, err, log := doCall(t, r, &idempotentOp, "")
	if !errors.Is(err, ErrBudgetExhausted) || len(log) != 2 || log[1].BudgetLeft != 0 {
		t.Fatalf("second call: %v after %d attempts, records %+v", err, len(log), log)
	}
	// Third call: no retry at all.
	if _, err, log := doCall(t, r, &idempotentOp, ""); !errors.Is(err, ErrBudgetExhausted) || len(log) != 1 {
		t.Fatalf("third call: %v after %d attempts", err, len(log))
	}
	// Two successes refill one token: the next failing call retries once.
	d.script = []step{ok200}
	d.reqs = nil
	for range 2 {
		if _, err, _ := doCall(t, r, &idempotentOp, ""); err != nil {
			t.Fatal(err)
		}
	}
	if left := r.BudgetLeft(Interactive); left != 1 {
		t.Fatalf("budget after two successes %v, want 1", left)
	}
	d.script = []step{answer(503)}
	d.reqs = nil
	if _, err, log := doCall(t, r, &idempotentOp, ""); !errors.Is(err, ErrBudgetExhausted) || len(log) != 2 {
		t.Fatalf("after refill: %v after %d attempts", err, len(log))
	}
}

// TestBudgetRefillCapped: successes never push the bucket above capacity.
func TestBudgetRefillCapped(t *testing.T) {
	r := newTestRunner(&fakeDoer{script: []step{ok200}}, newFakeClock(), WithBudget(Interactive, Budget{Capacity: 2, RetryCost: 1, SuccessRefill: 1}))
	for range 5 {
		if _, err, _ := doCall(t, r, &idempotentOp, ""); err != nil {
			t.Fatal(err)
		}
	}
	if left := r.BudgetLeft(Interactive); left != 2 {
		t.Fatalf("budget %v, want capacity 2", left)
	}
}

// TestTimeoutsCostMore: a retry after an attempt timeout takes TimeoutCost.
func TestTimeoutsCostMore(t *testing.T) {
	d := &fakeDoer{script: []step{{err: context.DeadlineExceeded, wrote: 1}, ok200}}
	p := quickPolicy()
	p.AttemptTimeout = time.Hour
	r := newTestRunner(d, newFakeClock(), WithPolicy(Interactive, p), WithBudget(Interactive, Budget{Capacity: 5, RetryCost: 1, TimeoutCost: 3}))
	if _, err, log := doCall(t, r, &keyedOp, ""); err != nil || len(log) != 2 {
		t.Fatalf("err %v after %d attempts", err, len(log))
	}
	if left := r.BudgetLeft(Interactive); left != 2 {
		t.Fatalf("budget %v, want 5-3", left)
	}
	d.script, d.reqs = []step{reset, ok200}, nil
	if _, err, _ := doCall(t, r, &keyedOp, ""); err != nil {
		t.Fatal(err)
	}
	if left := r.BudgetLeft(Interactive); left != 1 {
		t.Fatalf("budget %v, want 2-1 after a reset", left)
	}
}

// TestClassSeparation: draining the interactive budget leaves background
// retries untouched, and each class uses its own policy.
func TestClassSeparation(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503)}}
	bg := quickPolicy()
	bg.MaxAttempts = 5
	r := newTestRunner(d, newFakeClock(),
		WithBudget(Interactive, Budget{Capacity: 2, RetryCost: 1}),
		WithBudget(Background, Budget{Capacity: 100, RetryCost: 1}),
		WithPolicy(Background, bg))
	for range 3 {
		doCall(t, r, &idempotentOp, "")
	}
	if _, err, log := doCall(t, r, &idempotentOp, ""); !errors.Is(err, ErrBudgetExhausted) || len(log) != 1 {
		t.Fatalf("interactive: %v after %d attempts", err, len(log))
	}
	_, err, log := doCall(t, r, &idempotentOp, "", WithClass(Background))
	if !errors.Is(err, ErrAttemptsExhausted) || len(log) != 5 {
		t.Fatalf("background: %v after %d attempts", err, len(log))
	}
	if r.BudgetLeft(Background) != 96 || r.BudgetLeft(Interactive) != 0 {
		t.Fatalf("budgets: interactive %v, background %v", r.BudgetLeft(Interactive), r.BudgetLeft(Background))
	}
}

// TestDefaultsDiffer: the two default classes are distinct, and the default
// budgets bound an outage to far less than 10% extra of 1,000 calls.
func TestDefaultsDiffer(t *testing.T) {
	i, b := DefaultPolicy(Interactive), DefaultPolicy(Background)
	if i.MaxAttempts >= b.MaxAttempts || i.Timeout >= b.Timeout || i.MaxRetryAfter >= b.MaxRetryAfter {
		t.Fatalf("interactive %+v should be tighter than background %+v", i, b)
	}
	for _, c := range []Class{Interactive, Background} {
		if bud := DefaultBudget(c); bud.Capacity >= 100 || bud.TimeoutCost <= bud.RetryCost || bud.Unlimited {
			t.Fatalf("%v budget %+v", c, bud)
		}
	}
	if DefaultPolicy(Class(42)) != i {
		t.Fatal("an unknown class must fall back to interactive")
	}
}

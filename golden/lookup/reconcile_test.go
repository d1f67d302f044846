package lookup_test

// The reconciler settling an unsafe create through its x-lookup: the call's
// key is the body's client reference, so the journal entry, the error's
// KeyOf and the lookup name one intent. Business effect asserted: how many
// refunds the shop executed, and that the create is never sent again.

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/lookup"
	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// reconcileRefund makes one CreateRefund whose connection the shop drops
// (after executing it when executed is true), then runs one reconciler
// pass an hour later and returns what it settled.
func reconcileRefund(t *testing.T, executed bool) (*shop, journal.Pass, []journal.Outcome) {
	t.Helper()
	s, srv := newShop(t)
	j, err := sqlitestore.OpenJournal(context.Background(), filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	c := client(t, srv.URL, idemrt.WithJournal(j))
	s.set(executed, !executed)
	_, err = c.CreateRefund(context.Background(), lookup.NewRefund{Payment: "pay_1", Reference: "ref-9"})
	if err == nil {
		t.Fatal("CreateRefund on a dropped connection succeeded")
	}
	if key := idemrt.KeyOf(err); key != "ref-9" {
		t.Fatalf("KeyOf(%v) = %q, want the client reference ref-9", err, key)
	}
	// The handler that dropped the connection may still be running.
	s.set(false, false)
	var got []journal.Outcome
	rec := &journal.Reconciler{Journal: j, Client: c, Grace: time.Minute,
		Now:        func() time.Time { return time.Now().Add(time.Hour) },
		OnResolved: func(_ journal.Entry, o journal.Outcome) { got = append(got, o) }}
	return s, rec.Pass(context.Background()), got
}

// TestReconcileFindsALostRefund: the shop executed the refund and lost the
// answer; the pass finds it by its reference and settles it as executed,
// with the refund, and the shop executed it once.
func TestReconcileFindsALostRefund(t *testing.T) {
	s, p, got := reconcileRefund(t, true)
	if p.Err != nil || p.Executed != 1 || p.Claimed != 1 {
		t.Fatalf("pass %+v, want one entry executed", p)
	}
	if len(got) != 1 || got[0].Kind != journal.Executed || got[0].Status != 200 {
		t.Fatalf("outcomes %+v, want executed with the lookup's 200", got)
	}
	if n := s.executions(); n != 1 {
		t.Errorf("the shop executed %d refunds, want 1", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if want := "GET /refunds/by-reference/ref-9"; len(s.lookups) != 1 || s.lookups[0] != want {
		t.Errorf("lookups %v, want [%s]", s.lookups, want)
	}
}

// TestReconcileRefundNeverExecuted: the connection dropped before the shop
// executed anything; the lookup's 404 settles the entry as not executed,
// and the create is not sent again.
func TestReconcileRefundNeverExecuted(t *testing.T) {
	s, p, got := reconcileRefund(t, false)
	if p.Err != nil || p.NotExecuted != 1 {
		t.Fatalf("pass %+v, want one entry not executed", p)
	}
	if len(got) != 1 || got[0].Kind != journal.NotExecuted {
		t.Fatalf("outcomes %+v, want not executed", got)
	}
	if n := s.executions(); n != 0 {
		t.Errorf("the shop executed %d refunds, want 0: a lookup never resends", n)
	}
}

// set makes the shop's next creates execute and lose the answer (lose), or
// drop the connection before executing (refuse).
func (s *shop) set(lose, refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lose, s.refuse = lose, refuse
}

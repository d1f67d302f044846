package lookup_test

// A lookup finds an intent only when the value it finds carries the
// intent's key (x-lookup's match; by default the body member the key came
// from), and an unsafe call whose key would be empty is never sent. The
// business effect asserted: how many refunds and payments the shop
// executed, and that a never-sent intent is never settled as executed.

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/lookup"
	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestReconcileLookupAnswersAnotherRefund (J10): the shop's lookup ignores
// the reference and answers another refund. A refund whose connection
// dropped before the shop executed it is looked up: what the lookup finds
// carries another reference, so the pass does not settle it as executed.
// The shop executed one refund (the other one), and the create is not
// sent again.
func TestReconcileLookupAnswersAnotherRefund(t *testing.T) {
	s, srv := newShop(t)
	ctx := context.Background()
	c := client(t, srv.URL)
	if _, err := c.CreateRefund(ctx, lookup.NewRefund{Payment: "pay_1", Reference: "someone-else"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.anyRefund = "someone-else"
	s.mu.Unlock()

	j, err := sqlitestore.OpenJournal(ctx, filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	c = client(t, srv.URL, idemrt.WithJournal(j))
	s.set(false, true)
	if _, err := c.CreateRefund(ctx, lookup.NewRefund{Payment: "pay_2", Reference: "ref-9"}); err == nil {
		t.Fatal("CreateRefund on a dropped connection succeeded")
	}
	s.set(false, false)
	var got []journal.Outcome
	rec := &journal.Reconciler{Journal: j, Client: c, Grace: time.Minute,
		Now:        func() time.Time { return time.Now().Add(time.Hour) },
		OnResolved: func(_ journal.Entry, o journal.Outcome) { got = append(got, o) }}
	p := rec.Pass(ctx)
	if p.Executed != 0 {
		t.Fatalf("pass %+v: settled as executed a refund the shop never executed", p)
	}
	if len(got) != 1 || got[0].Kind != journal.NotExecuted {
		t.Fatalf("outcomes %+v, want not executed: what the lookup found carries another reference", got)
	}
	if n := s.executions(); n != 1 {
		t.Errorf("the shop executed %d refunds, want 1 (someone else's)", n)
	}
}

// TestLookupRefundCarriesTheKey: Lookup<Op> and LookupIntent report not
// found when the shop answers a refund with another reference, and found
// when it answers the one asked for.
func TestLookupRefundCarriesTheKey(t *testing.T) {
	s, srv := newShop(t)
	ctx := context.Background()
	c := client(t, srv.URL)
	if _, err := c.CreateRefund(ctx, lookup.NewRefund{Payment: "pay_1", Reference: "r1"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.anyRefund = "r1"
	s.mu.Unlock()
	if rf, found, err := c.LookupCreateRefund(ctx, "r2"); err != nil || found || rf != nil {
		t.Fatalf("LookupCreateRefund(r2) answered with r1's refund = %+v, %v, %v; want not found", rf, found, err)
	}
	if res, err := c.LookupIntent(ctx, "createRefund", "r2"); err != nil || res.Found || res.Body != nil {
		t.Fatalf("LookupIntent(r2) answered with r1's refund = %+v, %v; want not found", res, err)
	}
	if rf, found, err := c.LookupCreateRefund(ctx, "r1"); err != nil || !found || rf.ID != "re_r1" {
		t.Fatalf("LookupCreateRefund(r1) = %+v, %v, %v; want re_r1", rf, found, err)
	}
}

// TestLookupPicksTheElementThatCarriesTheKey: a list lookup (found
// /data/0) whose filter the shop ignores: the element that carries the
// reference is the one found, wherever it is in the list; a list without
// it is not found.
func TestLookupPicksTheElementThatCarriesTheKey(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		found      bool
	}{
		{"second", `{"data":[{"id":"pay_a","amount":1,"client_reference":"a"},{"id":"pay_b","amount":2,"client_reference":"b"}]}`, true},
		{"first", `{"data":[{"id":"pay_b","amount":2,"client_reference":"b"},{"id":"pay_a","amount":1,"client_reference":"a"}]}`, true},
		{"absent", `{"data":[{"id":"pay_a","amount":1,"client_reference":"a"}]}`, false},
		{"no reference", `{"data":[{"id":"pay_b","amount":2}]}`, false},
		{"null reference", `{"data":[{"id":"pay_b","amount":2,"client_reference":null}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := newShop(t)
			s.listAnswer, s.listStatus = tc.body, 200
			c := client(t, srv.URL)
			p, found, err := c.LookupCreatePayment(context.Background(), "b")
			if err != nil || found != tc.found || (found && (p.ID != "pay_b" || p.Amount != 2)) {
				t.Fatalf("LookupCreatePayment(b) = %+v, %v, %v; want found=%v (pay_b)", p, found, err, tc.found)
			}
		})
	}
}

// TestCreateRefundEmptyReferenceRefused (J18): a refund whose reference,
// the key its lookup finds it by, is empty is refused before anything is
// sent or journaled, with an error matching idemrt.ErrEmptyLookupKey; so
// is a lookup for the key "".
func TestCreateRefundEmptyReferenceRefused(t *testing.T) {
	s, srv := newShop(t)
	ctx := context.Background()
	j := idemrt.NewMemoryJournal()
	c := client(t, srv.URL, idemrt.WithJournal(j))
	_, err := c.CreateRefund(ctx, lookup.NewRefund{Payment: "pay_1", Reference: ""})
	if !errors.Is(err, idemrt.ErrEmptyLookupKey) {
		t.Fatalf("CreateRefund with an empty reference: %v, want ErrEmptyLookupKey", err)
	}
	if n := s.executions(); n != 0 {
		t.Errorf("the shop executed %d refunds, want 0", n)
	}
	if e := j.Entries(); len(e) != 0 {
		t.Errorf("the journal holds %d entries, want none: nothing was sent", len(e))
	}
	for _, op := range []string{"createRefund", "createPayment"} {
		if _, err := c.LookupIntent(ctx, op, ""); !errors.Is(err, idemrt.ErrEmptyLookupKey) {
			t.Errorf("LookupIntent(%s, \"\") = %v, want ErrEmptyLookupKey", op, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lookups) != 0 {
		t.Errorf("sent %v, want nothing", s.lookups)
	}
}

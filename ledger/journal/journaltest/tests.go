package journaltest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// Run runs the suite; open returns an empty journal for one test.
func Run(t *testing.T, open func(t *testing.T) *journal.SQL) {
	for _, tc := range []struct {
		name string
		f    func(*testing.T, *journal.SQL)
	}{
		{"RecordsAndResolves", recordsAndResolves},
		{"LostResponseExecutedOnce", lostResponseExecutedOnce},
		{"KilledBeforeSend", killedBeforeSend},
		{"KilledAfterSend", killedAfterSend},
		{"UnsafeLookupFound", unsafeLookupFound},
		{"UnsafeLookupNotFoundNeverResent", unsafeLookupNotFound},
		{"KeyPastTTL", keyPastTTL},
		{"EnqueuedInTransaction", enqueuedInTransaction},
		{"TwoReconcilersOneResend", twoReconcilersOneResend},
		{"RunPassesUntilCancelled", runPassesUntilCancelled},
		{"UnavailableLeftForLater", unavailableLeftForLater},
		{"LeaseOutlastsTheSend", leaseOutlastsTheSend},
		{"EmptyKeyNeedsPerson", emptyKeyNeedsPerson},
		{"CallInFlightHoldsItsEntry", callInFlightHoldsItsEntry},
		{"DeadOwnerHoldEnds", deadOwnerHoldEnds},
		{"HoldNeverBeforeDeadline", holdNeverBeforeDeadline},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, open(t)) })
	}
}

func get(t *testing.T, j *journal.SQL, id string) journal.Entry {
	t.Helper()
	e, _, ok, err := j.Get(context.Background(), id)
	if err != nil || !ok {
		t.Fatalf("entry %s: found %v, %v", id, ok, err)
	}
	return e
}

func only(t *testing.T, j *journal.SQL) journal.Entry {
	t.Helper()
	es, err := j.List(context.Background(), "", 10)
	if err != nil || len(es) != 1 {
		t.Fatalf("%d entries, %v; want one", len(es), err)
	}
	return es[0]
}

// recordsAndResolves: a keyed call that succeeds is recorded, its attempt
// stored, and the entry resolved; no pass touches it.
func recordsAndResolves(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	if _, err := env.Call(t, &Payments, "k-ok", ""); err != nil {
		t.Fatal(err)
	}
	e := only(t, j)
	_, attempts, _, _ := j.Get(context.Background(), e.ID)
	if e.State != journal.StateResolved || e.Resolution != "success" || len(attempts) != 1 || !attempts[0].Final || e.LastStatus != 201 {
		t.Fatalf("entry %+v, attempts %+v", e, attempts)
	}
	if p := env.Pass(t); p.Claimed != 0 || env.Shop.Executions() != 1 {
		t.Fatalf("pass %+v, %d executions", p, env.Shop.Executions())
	}
}

// lostResponseExecutedOnce: the server commits, the connection drops and
// the call ends unknown; the reconciler resends with the key and resolves
// the entry as executed with the original result. One execution.
func lostResponseExecutedOnce(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	env.Shop.DropNext()
	if _, err := env.Call(t, &Payments, "k-lost", ""); !errors.Is(err, idemrt.ErrOutcomeUnknown) {
		t.Fatalf("call: %v", err)
	}
	if e := only(t, j); e.State != journal.StateUnresolved {
		t.Fatalf("after the lost response: %+v", e)
	}
	env.Shift = 0
	if p := env.Rec.Pass(context.Background()); p.Claimed != 0 {
		t.Fatalf("an entry inside its grace was claimed: %+v", p)
	}
	if p := env.Pass(t); p.Executed != 1 {
		t.Fatalf("pass %+v", p)
	}
	got := env.Resolutions()
	if len(got) != 1 || got[0].Outcome.Kind != journal.Executed || string(got[0].Outcome.Body) != `{"id":"order-1"}` ||
		env.Shop.Executions() != 1 || only(t, j).State != journal.StateResolved {
		t.Fatalf("resolutions %+v, %d executions", got, env.Shop.Executions())
	}
	if p := env.Pass(t); p.Claimed != 0 {
		t.Fatalf("a resolved entry was claimed again: %+v", p)
	}
}

// killedBeforeSend: the process recorded the entry and died before
// sending: the reconciler's resend is the one send, one execution.
func killedBeforeSend(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	en := env.Entry(t, &Payments, "k-before", "")
	if err := j.Record(context.Background(), en); err != nil {
		t.Fatal(err)
	}
	if p := env.Pass(t); p.Executed != 1 || env.Shop.Executions() != 1 || env.Shop.Hits() != 1 {
		t.Fatalf("pass %+v, %d executions, %d hits", p, env.Shop.Executions(), env.Shop.Hits())
	}
}

// killedAfterSend: the process recorded the entry, sent it (the server
// executed it) and died before storing anything more: the resend gets the
// stored answer; still one execution.
func killedAfterSend(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	en := env.Entry(t, &Payments, "k-after", "")
	if err := j.Record(context.Background(), en); err != nil {
		t.Fatal(err)
	}
	// The dead process's send, made by a runner without the journal.
	other := NewEnv(t, j)
	other.Shop = env.Shop
	other.R = idemrt.NewRunner()
	if _, err := other.Call(t, &Payments, "k-after", ""); err != nil {
		t.Fatal(err)
	}
	if p := env.Pass(t); p.Executed != 1 || env.Shop.Executions() != 1 || env.Shop.Hits() != 2 {
		t.Fatalf("pass %+v, %d executions, %d hits", p, env.Shop.Executions(), env.Shop.Hits())
	}
}

// unsafeLookupFound: an unsafe call whose response was lost is looked up,
// found, and resolved as executed with the found result, never resent.
func unsafeLookupFound(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	env.Shop.DropNext()
	if _, err := env.Call(t, &Transfers, "ref-found", "ref-found"); !errors.Is(err, idemrt.ErrOutcomeUnknown) {
		t.Fatalf("call: %v", err)
	}
	if p := env.Pass(t); p.Executed != 1 {
		t.Fatalf("pass %+v", p)
	}
	got := env.Resolutions()
	if len(got) != 1 || got[0].Outcome.Kind != journal.Executed || string(got[0].Outcome.Body) != `{"id":"order-1"}` ||
		env.Shop.Executions() != 1 || env.Shop.Hits() != 2 {
		t.Fatalf("resolutions %+v, %d executions, %d hits", got, env.Shop.Executions(), env.Shop.Hits())
	}
}

// unsafeLookupNotFound: an unsafe entry the server never saw is not found
// after the grace: NotExecuted, and it is never sent.
func unsafeLookupNotFound(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	if err := j.Record(context.Background(), env.Entry(t, &Transfers, "ref-missing", "ref-missing")); err != nil {
		t.Fatal(err)
	}
	if p := env.Pass(t); p.NotExecuted != 1 {
		t.Fatalf("pass %+v", p)
	}
	if got := env.Resolutions(); len(got) != 1 || got[0].Outcome.Kind != journal.NotExecuted || env.Shop.Executions() != 0 || env.Shop.Hits() != 1 {
		t.Fatalf("resolutions %+v, %d executions, %d hits (the lookup only)", got, env.Shop.Executions(), env.Shop.Hits())
	}
}

// keyPastTTL: a keyed entry older than its key's TTL needs a person and is
// never resent.
func keyPastTTL(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	en := env.Entry(t, &Payments, "k-old", "")
	en.Created = en.Created.Add(-25 * time.Hour)
	if err := j.Record(context.Background(), en); err != nil {
		t.Fatal(err)
	}
	if p := env.Pass(t); p.NeedsPerson != 1 || env.Shop.Hits() != 0 {
		t.Fatalf("pass %+v, %d hits", p, env.Shop.Hits())
	}
	e := only(t, j)
	if got := env.Resolutions(); len(got) != 1 || got[0].Outcome.Kind != journal.NeedsPerson || e.State != journal.StateNeedsPerson ||
		!strings.Contains(e.Note, "TTL") {
		t.Fatalf("resolutions %+v, entry %+v", got, e)
	}
}

// enqueuedInTransaction: an entry recorded in the application's
// transaction is sent once if it commits and never if it rolls back.
func enqueuedInTransaction(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		tx, err := j.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		en := env.Entry(t, &Transfers, "ref-tx", "ref-tx")
		en.Queued = true
		if err := j.RecordTx(ctx, tx, en); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		env.Pass(t)
	}
	env.Pass(t)
	if got := env.Resolutions(); len(got) != 1 || got[0].Outcome.Kind != journal.Executed || env.Shop.Executions() != 1 || env.Shop.Hits() != 1 {
		t.Fatalf("resolutions %+v, %d executions, %d hits", got, env.Shop.Executions(), env.Shop.Hits())
	}
}

// twoReconcilersOneResend: two reconcilers pass over one journal at once;
// the due entry is resent once.
func twoReconcilersOneResend(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	if err := j.Record(context.Background(), env.Entry(t, &Payments, "k-two", "")); err != nil {
		t.Fatal(err)
	}
	env.Shift = 2 * time.Minute
	recs := []*journal.Reconciler{env.NewReconciler(env.R), env.NewReconciler(env.R)}
	var wg sync.WaitGroup
	passes := make([]journal.Pass, len(recs))
	for i, r := range recs {
		wg.Go(func() { passes[i] = r.Pass(context.Background()) })
	}
	wg.Wait()
	if passes[0].Claimed+passes[1].Claimed != 1 || env.Shop.Hits() != 1 || len(env.Resolutions()) != 1 {
		t.Fatalf("passes %+v, %d hits, %d resolutions", passes, env.Shop.Hits(), len(env.Resolutions()))
	}
}

// runPassesUntilCancelled: Run makes a pass at once, reports it to the
// observer, and returns the context's error when it ends.
func runPassesUntilCancelled(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	if err := j.Record(context.Background(), env.Entry(t, &Payments, "k-run", "")); err != nil {
		t.Fatal(err)
	}
	env.Shift = 2 * time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	var seen []journal.Pass
	env.Rec.Observer = journal.ObserverFunc(func(_ context.Context, p journal.Pass) {
		seen = append(seen, p)
		cancel()
	})
	if err := env.Rec.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if len(seen) != 1 || seen[0].Executed != 1 || env.Shop.Executions() != 1 {
		t.Fatalf("passes %+v, %d executions", seen, env.Shop.Executions())
	}
}

// unavailableLeftForLater: a resend answered 503 settles nothing: the entry
// stays unresolved, and a pass after its lease resends it again: one
// execution.
func unavailableLeftForLater(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	if err := j.Record(context.Background(), env.Entry(t, &Payments, "k-503", "")); err != nil {
		t.Fatal(err)
	}
	env.Shop.Unavailable(1)
	if p := env.Pass(t); p.Later != 1 || only(t, j).State != journal.StateUnresolved {
		t.Fatalf("pass %+v, entry %+v", p, only(t, j))
	}
	env.Shift = 10 * time.Minute // past the lease
	if p := env.Rec.Pass(context.Background()); p.Executed != 1 || env.Shop.Executions() != 1 || env.Shop.Hits() != 2 {
		t.Fatalf("pass %+v, %d executions, %d hits", p, env.Shop.Executions(), env.Shop.Hits())
	}
}

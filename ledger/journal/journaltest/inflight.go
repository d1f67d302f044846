package journaltest

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// deadlineClient is a RunnerClient that remembers the deadline of the
// context each resend was given (zero: none).
type deadlineClient struct {
	journal.RunnerClient
	mu        *sync.Mutex
	deadlines *[]time.Time
}

// ResendIntent records ctx's deadline and resends.
func (c deadlineClient) ResendIntent(ctx context.Context, e *idemrt.JournalEntry) (*http.Response, error) {
	d, _ := ctx.Deadline()
	c.mu.Lock()
	*c.deadlines = append(*c.deadlines, d)
	c.mu.Unlock()
	return c.RunnerClient.ResendIntent(ctx, e)
}

// leaseOutlastsTheSend (J9): a queued unsafe entry's first send, to a slow
// server, outlasts the lease it was claimed with. A second reconciler that
// passes after that lease ended must not look the entry up while the send
// may still be in flight: it would find nothing and report NotExecuted an
// intent that then executes. The send is bounded by the lease, the entry
// executes once and is reported Executed only.
func leaseOutlastsTheSend(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	ctx := context.Background()
	en := env.Entry(t, &Transfers, "ref-slow", "ref-slow")
	en.Queued = true
	if err := j.Record(ctx, en); err != nil {
		t.Fatal(err)
	}
	arrived, release := env.Shop.StallNext()
	defer release()
	var mu sync.Mutex
	var deadlines []time.Time
	a := env.Rec
	a.Client = deadlineClient{a.Client.(journal.RunnerClient), &mu, &deadlines}
	env.Shift = 2 * time.Minute
	done := make(chan journal.Pass)
	go func() { done <- a.Pass(ctx) }()
	<-arrived
	sent := time.Now()
	// The second reconciler's clock is past the claim's lease (2 minutes)
	// while the first send is still at the server.
	b := env.NewReconciler(env.R)
	b.Now = func() time.Time { return time.Now().Add(4*time.Minute + time.Second) }
	pb := b.Pass(ctx)
	release()
	pa := <-done
	got := env.Resolutions()
	if pb.Claimed != 0 || pa.Executed != 1 || env.Shop.Executions() != 1 || len(got) != 1 || got[0].Outcome.Kind != journal.Executed {
		t.Fatalf("second pass %+v, first %+v, %d executions, resolutions %+v", pb, pa, env.Shop.Executions(), got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(deadlines) != 1 || deadlines[0].IsZero() || deadlines[0].After(sent.Add(2*time.Minute)) {
		t.Fatalf("the send's deadlines %v: want one, within the lease (2 minutes from %v)", deadlines, sent)
	}
}

// emptyKeyNeedsPerson (J18): an unsafe entry with an empty key cannot be
// looked up (a lookup by "" finds nothing, or anything), and a keyed entry
// with an empty key cannot be resent safely: both need a person at the
// first pass, with a reason that says so, and nothing is sent.
func emptyKeyNeedsPerson(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	ctx := context.Background()
	unsafe := env.Entry(t, &Transfers, "", "")
	keyed := env.Entry(t, &Payments, "", "")
	unsafe.Key, keyed.Key = "", ""
	keyed.Header.Del(Payments.KeyHeader)
	for _, en := range []*idemrt.JournalEntry{unsafe, keyed} {
		if err := j.Record(ctx, en); err != nil {
			t.Fatal(err)
		}
	}
	if p := env.Pass(t); p.NeedsPerson != 2 || env.Shop.Hits() != 0 {
		t.Fatalf("pass %+v, %d hits", p, env.Shop.Hits())
	}
	for id, want := range map[string]string{unsafe.ID: "no key to look it up by", keyed.ID: "no idempotency key"} {
		if e := get(t, j, id); e.State != journal.StateNeedsPerson || !strings.Contains(e.Note, want) {
			t.Errorf("entry %s: state %s, note %q; want needs-person, %q", id, e.State, e.Note, want)
		}
	}
}

// callInFlightHoldsItsEntry (J19): an unsafe call without a deadline is
// still at a slow server when a pass comes, past the grace: the pass must
// leave it alone (its process holds it), and the call then succeeds: one
// execution, the entry resolved by the call, nothing reported.
func callInFlightHoldsItsEntry(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	arrived, release := env.Shop.StallNext()
	defer release()
	done := make(chan error, 1)
	go func() {
		_, err := env.Call(t, &Transfers, "ref-long", "ref-long", idemrt.WithTimeout(-1))
		done <- err
	}()
	<-arrived
	env.Shift = 90 * time.Second
	p := env.Rec.Pass(context.Background())
	release()
	if err := <-done; err != nil {
		t.Fatalf("call: %v", err)
	}
	e := only(t, j)
	if p.Claimed != 0 || len(env.Resolutions()) != 0 || env.Shop.Executions() != 1 || e.State != journal.StateResolved {
		t.Fatalf("pass %+v, resolutions %+v, %d executions, entry %+v", p, env.Resolutions(), env.Shop.Executions(), e)
	}
}

// deadOwnerHoldEnds (J19): a process recorded an entry held for
// idemrt.JournalHold and died: it stops renewing, and the entry is worked
// once the hold and then the grace have passed, not before.
func deadOwnerHoldEnds(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	en := env.Entry(t, &Transfers, "ref-dead", "ref-dead")
	en.HeldUntil = en.Created.Add(idemrt.JournalHold)
	if err := j.Record(context.Background(), en); err != nil {
		t.Fatal(err)
	}
	if e := get(t, j, en.ID); !e.HeldUntil.Equal(en.HeldUntil) {
		t.Fatalf("held until %v, want %v", e.HeldUntil, en.HeldUntil)
	}
	env.Shift = idemrt.JournalHold + time.Minute - time.Second
	if p := env.Rec.Pass(context.Background()); p.Claimed != 0 {
		t.Fatalf("an entry inside its hold and grace was claimed: %+v", p)
	}
	env.Shift = idemrt.JournalHold + time.Minute + time.Second
	if p := env.Rec.Pass(context.Background()); p.NotExecuted != 1 || env.Shop.Executions() != 0 {
		t.Fatalf("pass %+v, %d executions", p, env.Shop.Executions())
	}
}

// holdNeverBeforeDeadline: a hold set to end before the entry's deadline
// (a call that ended early) leaves it settling at its deadline: the
// reconciler still waits the deadline and the grace.
func holdNeverBeforeDeadline(t *testing.T, j *journal.SQL) {
	env := NewEnv(t, j)
	ctx := context.Background()
	en := env.Entry(t, &Payments, "k-hold", "")
	en.Deadline = en.Created.Add(5 * time.Minute)
	en.HeldUntil = en.Created.Add(idemrt.JournalHold)
	if err := j.Record(ctx, en); err != nil {
		t.Fatal(err)
	}
	if err := j.Hold(ctx, en.ID, en.Created.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if e := get(t, j, en.ID); !e.HeldUntil.IsZero() || !e.Settles().Equal(en.Deadline) {
		t.Fatalf("held until %v, settles %v; want no hold, the deadline %v", e.HeldUntil, e.Settles(), en.Deadline)
	}
	env.Shift = 6*time.Minute - time.Second
	if p := env.Rec.Pass(ctx); p.Claimed != 0 {
		t.Fatalf("claimed before its deadline and grace: %+v", p)
	}
	env.Shift = 6*time.Minute + time.Second
	if p := env.Rec.Pass(ctx); p.Executed != 1 || env.Shop.Executions() != 1 {
		t.Fatalf("pass %+v, %d executions", p, env.Shop.Executions())
	}
}

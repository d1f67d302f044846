package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// stallServer holds each request until release has a value, then answers
// 201, or, when drop is set, closes the connection without an answer.
type stallServer struct {
	arrived chan struct{}
	release chan bool
}

func newStallServer(t *testing.T) (*stallServer, string) {
	s := &stallServer{arrived: make(chan struct{}, 1), release: make(chan bool, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.arrived <- struct{}{}
		var drop bool
		select {
		case drop = <-s.release:
		case <-r.Context().Done():
			return
		}
		if drop {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// heldCall starts an unsafe call without a deadline on a Runner with a
// MemoryJournal and a timer clock; it returns once the request is at the
// server, with the entry's id.
func heldCall(t *testing.T) (*MemoryJournal, *timerClock, *stallServer, string, chan error) {
	j := NewMemoryJournal()
	clk, s, id, done := heldCallOn(t, j, j)
	return j, clk, s, id, done
}

// heldCallOn is heldCall on journal j, whose entries m keeps.
func heldCallOn(t *testing.T, j Journal, m *MemoryJournal) (*timerClock, *stallServer, string, chan error) {
	s, base := newStallServer(t)
	clk := newTimerClock()
	r, _ := loopRunner(t, quickPolicy(), WithClock(clk), WithJournal(j))
	done := make(chan error, 1)
	go func() {
		req := &Request{Method: "POST", URL: mustURL(t, base+unsafeOp.Path), Body: []byte(`{"ref":"r"}`), Key: "r"}
		resp, err := r.Do(context.Background(), &unsafeOp, req, WithTimeout(-1))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-s.arrived
	es := m.Entries()
	if len(es) != 1 {
		t.Fatalf("%d entries", len(es))
	}
	return clk, s, es[0].ID, done
}

func heldUntil(t *testing.T, j *MemoryJournal) JournalEntry {
	t.Helper()
	es := j.Entries()
	if len(es) != 1 {
		t.Fatalf("%d entries", len(es))
	}
	return es[0]
}

// TestJournalHoldRenewedWhileCallRuns (J19): an unsafe call without a
// deadline holds its entry for as long as it runs: recorded held for
// JournalHold, renewed every third of it on the Runner's clock, so after
// five minutes of a call still at the server the entry does not settle
// before another JournalHold. The call then succeeds and resolves it; the
// renewals stop.
func TestJournalHoldRenewedWhileCallRuns(t *testing.T) {
	j, clk, s, _, done := heldCall(t)
	e := heldUntil(t, j)
	if !e.Deadline.IsZero() || !e.HeldUntil.Equal(e.Created.Add(JournalHold)) {
		t.Fatalf("recorded with deadline %v, held until %v; want none, created+%v", e.Deadline, e.HeldUntil, JournalHold)
	}
	for range 15 {
		clk.Advance(journalHoldBeat)
	}
	if e := heldUntil(t, j); !e.Settles().Equal(clk.Now().Add(JournalHold)) {
		t.Fatalf("after five minutes the entry settles at %v; want %v (renewed)", e.Settles(), clk.Now().Add(JournalHold))
	}
	s.release <- false
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	before := heldUntil(t, j)
	clk.Advance(5 * time.Minute)
	if _, resolved := j.Attempts(before.ID); !resolved || !heldUntil(t, j).HeldUntil.Equal(before.HeldUntil) {
		t.Fatalf("resolved %v, held until %v after the call ended (was %v)", resolved, heldUntil(t, j).HeldUntil, before.HeldUntil)
	}
}

// TestJournalHoldEndsWithTheCall: a held call whose answer is lost after
// two minutes ends unknown; its hold ends with it, at the call's end (a
// reconciler waits its grace from there), and is not renewed again.
func TestJournalHoldEndsWithTheCall(t *testing.T) {
	j, clk, s, id, done := heldCall(t)
	clk.Advance(2 * time.Minute)
	end := clk.Now()
	s.release <- true
	if err := <-done; !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("call: %v", err)
	}
	clk.Advance(5 * time.Minute)
	e := heldUntil(t, j)
	if _, resolved := j.Attempts(id); resolved || !e.HeldUntil.Equal(end) || !e.Settles().Equal(end) {
		t.Fatalf("resolved %v, held until %v, settles %v; want unresolved, both %v", resolved, e.HeldUntil, e.Settles(), end)
	}
}

// holdFailingJournal is a MemoryJournal whose next failures Holds fail.
type holdFailingJournal struct {
	*MemoryJournal
	failures *atomic.Int32
}

func (j holdFailingJournal) Hold(ctx context.Context, id string, until time.Time) error {
	if j.failures.Add(-1) >= 0 {
		return errors.New("database unreachable")
	}
	return j.MemoryJournal.Hold(ctx, id, until)
}

// TestJournalHoldLostStopsTheCall: a call without a deadline whose hold
// cannot be renewed goes on while the hold lasts (one renewal that fails,
// then one that works: the call succeeds), and is stopped before the hold
// can run out when renewals keep failing, so no reconciler works its entry
// while it is still being sent: the call ends unknown, with ErrJournalHold,
// and the entry stays unresolved.
func TestJournalHoldLostStopsTheCall(t *testing.T) {
	for _, failures := range []int32{1, 1000} {
		m := NewMemoryJournal()
		var n atomic.Int32
		n.Store(failures)
		clk, s, id, done := heldCallOn(t, holdFailingJournal{m, &n}, m)
		clk.Advance(journalHoldBeat)
		clk.Advance(journalHoldBeat)
		if failures == 1 {
			s.release <- false
			if err := <-done; err != nil {
				t.Fatalf("one failed renewal, then a good one: the call ended with %v", err)
			}
			continue
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the call still runs after its hold could not be renewed for two beats")
		}
		if !errors.Is(err, ErrJournalHold) || !errors.Is(err, ErrOutcomeUnknown) {
			t.Fatalf("call: %v; want ErrJournalHold and ErrOutcomeUnknown", err)
		}
		if _, resolved := m.Attempts(id); resolved {
			t.Fatal("the entry was resolved")
		}
	}
}

package ledgertest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// blockingHandler replaces the fixture's handler with one that writes its
// order, then signals entered and waits for release before it answers.
func (f *fixture) blockingHandler() (entered, release chan struct{}) {
	entered, release = make(chan struct{}, 4), make(chan struct{})
	f.handle(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		f.createOrder(w, r)
	})
	return entered, release
}

// testRepeatWhileRunning: while the first execution of a key runs, a repeat
// with the same body is 409 and one with another body 422, whether the
// store shows the key in progress (a reservation committed on its own) or
// the process knows it runs (a reservation inside the business
// transaction, which no read finds before it commits); the row is what
// each says. The first then answers 201, and a repeat replays it.
func testRepeatWhileRunning(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	entered, release := f.blockingHandler()
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- f.do("alice", "k1", body1) }()
	<-entered
	rec, found := f.row("alice", "k1")
	switch {
	case f.store.ReservesInTx() && found:
		t.Errorf("a reservation inside the business transaction was read before it committed: %+v", rec)
	case !f.store.ReservesInTx() && (!found || rec.State != ledger.StateInProgress):
		t.Errorf("a reservation committed on its own is not in progress: found %v, %+v", found, rec)
	}
	wantStatus(t, f.do("alice", "k1", body1), http.StatusConflict)
	wantStatus(t, f.do("alice", "k1", `{"item":"pen","qty":2}`), http.StatusUnprocessableEntity)
	close(release)
	w := <-first
	wantStatus(t, w, http.StatusCreated)
	again := f.do("alice", "k1", body1)
	wantStatus(t, again, http.StatusCreated)
	if again.Header().Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body.Bytes(), w.Body.Bytes()) {
		t.Errorf("the repeat after completion: replayed %q, body %s, want the first answer %s",
			again.Header().Get("Idempotent-Replayed"), again.Body.Bytes(), w.Body.Bytes())
	}
	f.wantCounts(1, 1)
}

// testRepeatInAnotherProcess: a repeat sent to another process (another
// Ledger on the same store, which never saw the key) while the first
// execution runs is answered 409, or waits and replays its answer (SQLite's
// one writer, held by the first); the order is written once either way.
func testRepeatInAnotherProcess(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	entered, release := f.blockingHandler()
	other, err := ledger.New(ledger.Config{Store: f.store, Caller: callerOf, Lease: lease, TTL: ttl, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- f.do("alice", "k1", body1) }()
	<-entered
	second := make(chan *httptest.ResponseRecorder)
	h2 := other.Handle("createOrder", http.HandlerFunc(f.createOrder))
	go func() { second <- f.sendTo(h2, "/orders", "alice", "k1", body1, nil) }()
	close(release)
	w1, w2 := <-first, <-second
	wantStatus(t, w1, http.StatusCreated)
	switch {
	case w2.Code == http.StatusConflict:
	case w2.Code == http.StatusCreated && bytes.Equal(w2.Body.Bytes(), w1.Body.Bytes()):
	default:
		t.Errorf("the other process answered %d %s, want 409 or the first answer %s", w2.Code, w2.Body.Bytes(), w1.Body.Bytes())
	}
	f.wantCounts(1, 1)
}

// onAnswer is a ResponseWriter that calls fn when the answer's status is
// written: the moment a caller could read it and send its next request.
type onAnswer struct {
	*httptest.ResponseRecorder
	fn func()
}

func (o *onAnswer) WriteHeader(status int) {
	o.ResponseRecorder.WriteHeader(status)
	if status >= 200 && o.fn != nil {
		fn := o.fn
		o.fn = nil
		fn()
	}
}

// testRepeatAsTheAnswerArrives: a repeat sent the moment the first answer
// starts (from inside its WriteHeader) is replayed, never told the key is
// still in progress: by then the execution's transaction has committed,
// and the process no longer counts it as running.
func testRepeatAsTheAnswerArrives(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	var repeat *httptest.ResponseRecorder
	w := &onAnswer{ResponseRecorder: httptest.NewRecorder(), fn: func() { repeat = f.do("alice", "k1", body1) }}
	r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(body1))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Caller", "alice")
	r.Header.Set("Idempotency-Key", "k1")
	f.h.ServeHTTP(w, r)
	wantStatus(t, w.ResponseRecorder, http.StatusCreated)
	if repeat == nil {
		t.Fatal("the answer's status was never written")
	}
	wantStatus(t, repeat, http.StatusCreated)
	if repeat.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("the repeat was not a replay: %v", repeat.Header())
	}
	f.wantCounts(1, 1)
}

// testStuckHandlerFreesTheKey: a handler that ignores its context and never
// returns does not hold its key for ever: once the lease runs out (its
// transaction rolled back), a repeat to the same process executes the key,
// once, instead of being told 409 until the stuck handler returns.
func testStuckHandlerFreesTheKey(t *testing.T, open Opener) {
	f := newFixture(t, open, func(c *ledger.Config) { c.Lease = 50 * time.Millisecond })
	entered, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	f.handle(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Stuck") != "" {
			entered <- struct{}{}
			<-release // deaf to its context
			return
		}
		f.createOrder(w, r)
	})
	go f.doWith("/orders", "alice", "k1", body1, http.Header{"X-Stuck": {"1"}})
	<-entered
	f.clock.Advance(50 * time.Millisecond) // the stored lease, on the store's clock
	deadline := time.Now().Add(5 * time.Second)
	for {
		w := f.do("alice", "k1", body1)
		if w.Code == http.StatusCreated {
			break
		}
		if w.Code != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("a repeat after the stuck handler's lease: %d %s, want 201 once the lease ran out", w.Code, w.Body.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.wantCounts(1, 1)
}

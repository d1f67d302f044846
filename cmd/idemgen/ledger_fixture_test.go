package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/ledgertest"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// Hostile values stored in the fixture: terminal escapes (colour, clear
// screen, set window title, a one-byte C1 CSI), a bidi override, and a
// forged line of output after a newline.
const (
	hostileCaller = "mallory\x1b[2J\u202e"
	hostileKey    = "evil\x1b]0;pwned\x07key"
	hostileBody   = "{\"id\":\"ord_x\"}\x1b[31mRED\u009b1m\nstate  completed\x7f"
)

// ledgerFixture writes, through the ledger middleware and the store API, a
// ledger holding every kind of row the command reports, and returns the
// clock's reading at which the command should look at it:
//
//	alice/createOrder/k-old   completed at t0, TTL 1h: expired at now
//	alice/createOrder/k-done  completed at t0+1h
//	bob/createOrder/k-crash   reserved at t0+1h with a 10s lease, never completed: stuck
//	bob/refund/k-busy         reserved 1s before now with a 10s lease: in progress, alive
//	mallory.../createOrder/evil...  completed through the store with a hostile body
//	outbox: evt_k-old delivered, evt_big parked by the relay, evt_k-done failed once, evt_evil pending
//	idem_parked: evt_x of source shop, parked by consumer mailer with a hostile error
func ledgerFixture(t *testing.T, s *sqlstore.Store) time.Time {
	t.Helper()
	clock := ledgertest.NewClock()
	ob := outbox.New(s.DB(), s.Dialect(), clock.Now)
	owner := 0
	l, err := ledger.New(ledger.Config{
		Store: s, Now: clock.Now, Lease: 10 * time.Second, TTL: time.Hour,
		Caller: func(r *http.Request) (string, error) { return r.Header.Get("X-Caller"), nil },
		Owner:  func() string { owner++; return fmt.Sprintf("owner-%d", owner) },
	})
	if err != nil {
		t.Fatal(err)
	}
	h := l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := ledger.KeyOf(r.Context())
		key := id.Key
		if _, err := ob.Add(r.Context(), ledger.Tx(r.Context()), outbox.Event{ID: "evt_" + key, Topic: "order.created"}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":"ord_%s"}`, key)
	}))
	post := func(caller, key string) {
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"item":"book"}`))
		req.Header.Set("X-Caller", caller)
		req.Header.Set("Idempotency-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", key, rec.Code, rec.Body)
		}
	}
	post("alice", "k-old")
	addEvent(t, s, ob, outbox.Event{ID: "evt_big", Topic: "order.created", Payload: make([]byte, 2048)})
	clock.Advance(time.Hour)
	post("alice", "k-done")
	reserve(t, s, ledger.ID{Caller: "bob", Operation: "createOrder", Key: "k-crash"}, "owner-crashed", clock.Now())
	storeHostile(t, s, ob, clock.Now())
	relayOnce(t, ob, nil)
	relayOnce(t, ob, outbox.Permanent(errors.New("nats: maximum payload exceeded")))
	relayOnce(t, ob, errors.New("broker down"))
	cause := errors.New("smtp: 550 \x1b[31mrejected")
	e := outbox.Event{ID: "evt_x", Topic: "order.created", Source: "shop", Payload: []byte("{}")}
	if err := ob.Park(context.Background(), "mailer", e, 10, cause); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5*time.Minute + 12*time.Second)
	reserve(t, s, ledger.ID{Caller: "bob", Operation: "refund", Key: "k-busy"}, "owner-busy", clock.Now().Add(-time.Second))
	return clock.Now()
}

func reserve(t *testing.T, s *sqlstore.Store, id ledger.ID, owner string, now time.Time) {
	t.Helper()
	dec, err := s.Reserve(context.Background(), ledger.Reservation{ID: id, Fingerprint: "fp-" + id.Key,
		Owner: owner, Now: now, Lease: 10 * time.Second, TTL: time.Hour})
	if err != nil || dec.Outcome != ledger.Reserved {
		t.Fatalf("reserve %v: %v %v", id, dec.Outcome, err)
	}
}

// storeHostile completes a row whose caller, key and body hold terminal
// escapes, as another writer of the database could store them (the
// middleware refuses such keys).
func storeHostile(t *testing.T, s *sqlstore.Store, ob *outbox.Outbox, now time.Time) {
	t.Helper()
	ctx := context.Background()
	id := ledger.ID{Caller: hostileCaller, Operation: "createOrder", Key: hostileKey}
	reserve(t, s, id, "owner-evil", now)
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := ob.Add(ctx, tx, outbox.Event{ID: "evt_\x1b[1mevil", Topic: "order.created\u202e"}); err != nil {
		t.Fatal(err)
	}
	resp := ledger.Response{Status: 201, Header: http.Header{"Location": {"/orders/\x1b[5mx"}}, Body: []byte(hostileBody)}
	if err := s.Complete(ctx, tx, id, "owner-evil", resp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func addEvent(t *testing.T, s *sqlstore.Store, ob *outbox.Outbox, e outbox.Event) {
	t.Helper()
	tx, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := ob.Add(context.Background(), tx, e); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// relayOnce runs the relay over one event; publishing fails with fail.
func relayOnce(t *testing.T, ob *outbox.Outbox, fail error) {
	t.Helper()
	r := &outbox.Relay{Outbox: ob, Batch: 1, Publish: func(context.Context, outbox.Event) error { return fail }}
	if _, err := r.Once(context.Background()); !errors.Is(err, fail) {
		t.Fatalf("relay: %v, want %v", err, fail)
	}
}

// runLedgerCmd runs `idemgen ledger` in-process with the clock at now.
func runLedgerCmd(t *testing.T, now time.Time, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	tc := toolchain{now: func() time.Time { return now }}
	code := runWith(tc, append([]string{"ledger"}, args...), &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

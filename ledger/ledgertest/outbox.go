package ledgertest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// testOutbox writes three orders (three events in their business
// transactions), then relays with a publisher whose acknowledgement is lost
// once: the event is delivered twice and applied once.
func testOutbox(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	for i := range 3 {
		wantStatus(t, f.do("alice", fmt.Sprintf("k%d", i), body1), http.StatusCreated)
	}
	f.fail.Store(http.StatusInternalServerError)
	wantStatus(t, f.do("alice", "rolled-back", body1), http.StatusInternalServerError)
	delivered, applied := 0, 0
	lostAck := true
	apply := func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		applied++
		_, err := tx.ExecContext(ctx, f.store.Dialect().Rebind(`INSERT INTO effects (event_id, order_id) VALUES (?, ?)`), e.ID, string(e.Payload))
		return err
	}
	relay := &outbox.Relay{Outbox: f.ob, Batch: 2, Publish: func(ctx context.Context, e outbox.Event) error {
		delivered++
		if _, err := f.ob.Consume(ctx, "mailer", e, apply); err != nil {
			return err
		}
		if lostAck && e.ID == "evt-ord-2" {
			// The consumer applied it, but the relay never learns: it must
			// deliver again.
			lostAck = false
			return errors.New("ack lost")
		}
		return nil
	}}
	ctx := context.Background()
	if n, err := relay.Once(ctx); n != 1 || err == nil {
		t.Fatalf("first pass delivered %d (err %v), want 1 then the lost ack", n, err)
	}
	for pass := 0; pass < 3; pass++ {
		if _, err := relay.Once(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if pending, _ := f.ob.Pending(ctx); pending != 0 {
		t.Errorf("%d events still pending", pending)
	}
	if delivered != 4 || applied != 3 {
		t.Errorf("delivered %d times, applied %d; want 4 deliveries (one repeat) and 3 effects", delivered, applied)
	}
	if got := f.count("effects"); got != 3 {
		t.Errorf("effects rows = %d, want 3 (the rolled-back order has no event)", got)
	}
	var dup int
	f.store.DB().QueryRow(`SELECT COUNT(*) FROM (SELECT event_id FROM effects GROUP BY event_id HAVING COUNT(*) > 1) d`).Scan(&dup)
	if dup != 0 {
		t.Errorf("%d events applied more than once", dup)
	}
}

// testConcurrentRelays runs two relays side by side over twenty events:
// whatever each delivers, the consumer applies every event exactly once.
func testConcurrentRelays(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	const events = 20
	for i := range events {
		wantStatus(t, f.do("alice", fmt.Sprintf("k%d", i), body1), http.StatusCreated)
	}
	var mu sync.Mutex
	delivered := 0
	apply := func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		_, err := tx.ExecContext(ctx, f.store.Dialect().Rebind(`INSERT INTO effects (event_id, order_id) VALUES (?, ?)`), e.ID, string(e.Payload))
		return err
	}
	publish := func(ctx context.Context, e outbox.Event) error {
		mu.Lock()
		delivered++
		mu.Unlock()
		_, err := f.ob.Consume(ctx, "mailer", e, apply)
		return err
	}
	// Each relay runs until nothing is pending, not for a fixed number of
	// passes: on PostgreSQL a relay that finds the other's pass under way
	// delivers nothing, and how many of its passes that costs is up to the
	// scheduler.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range 2 {
		relay := &outbox.Relay{Outbox: f.ob, Publish: publish, Batch: 3}
		wg.Go(func() { relayUntilDrained(t, ctx, f.ob, relay) })
	}
	wg.Wait()
	if got := f.count("effects"); got != events || delivered < events {
		t.Fatalf("%d deliveries, %d effects; want >= %d deliveries and exactly %d effects", delivered, got, events, events)
	}
	if pending, _ := f.ob.Pending(context.Background()); pending != 0 {
		t.Errorf("%d events still pending", pending)
	}
}

// relayUntilDrained runs relay passes until the outbox has nothing pending
// or ctx ends.
func relayUntilDrained(t *testing.T, ctx context.Context, ob *outbox.Outbox, relay *outbox.Relay) {
	for {
		if _, err := relay.Once(ctx); err != nil {
			t.Error(err)
			return
		}
		n, err := ob.Pending(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		if n == 0 {
			return
		}
		if ctx.Err() != nil {
			t.Errorf("%d events still pending after %v", n, ctx.Err())
			return
		}
	}
}

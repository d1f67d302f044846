package ledgertest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// oldOutbox is idem_outbox as the first release created it, before the
// parked_at and last_error columns.
const oldOutbox = `CREATE TABLE idem_outbox (
	seq %s,
	event_id TEXT NOT NULL UNIQUE,
	topic TEXT NOT NULL,
	payload %s,
	created_at BIGINT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	delivered_at BIGINT
)`

// addEvents commits one transaction per event.
func addEvents(t *testing.T, ob *outbox.Outbox, db *sql.DB, events ...outbox.Event) {
	t.Helper()
	for _, e := range events {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ob.Add(context.Background(), tx, e); err != nil {
			tx.Rollback()
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// testOutboxMigratesOldSchema: a database whose outbox an earlier version
// created (no parked_at, no idem_parked) keeps its pending events through
// Migrate, run twice; Backlog reads it before the migration too, and the
// relay parks and delivers on it afterwards.
func testOutboxMigratesOldSchema(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	db, d, ctx := f.store.DB(), f.store.Dialect(), context.Background()
	serial := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if d.Name == "postgres" {
		serial = "BIGSERIAL PRIMARY KEY"
	}
	for _, q := range []string{`DROP TABLE idem_outbox`, `DROP TABLE idem_parked`, fmt.Sprintf(oldOutbox, serial, d.Blob)} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	addEvents(t, f.ob, db, outbox.Event{ID: "old-1", Topic: "t", Payload: []byte("1")}, outbox.Event{ID: "old-2", Topic: "t"})
	if b, err := f.ob.Backlog(ctx, 10); err != nil || b.Undelivered != 2 || b.Parked != 0 || len(b.Oldest) != 2 {
		t.Fatalf("Backlog before the migration = %+v, %v; want 2 pending, none parked", b, err)
	}
	if n, list, err := f.ob.Parked(ctx, 10); n != 0 || list != nil || err != nil {
		t.Fatalf("Parked before the migration = %d %v %v; want none", n, list, err)
	}
	for range 2 {
		if err := f.store.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	relay := &outbox.Relay{Outbox: f.ob, Publish: func(ctx context.Context, e outbox.Event) error {
		if e.ID == "old-1" {
			return outbox.Permanent(errors.New("too large"))
		}
		return nil
	}}
	if n, err := relay.Once(ctx); n != 1 || !errors.Is(err, outbox.ErrParked) {
		t.Fatalf("relay on the migrated outbox delivered %d, err %v; want 1 and old-1 parked", n, err)
	}
	if b, err := f.ob.Backlog(ctx, 10); err != nil || b.Undelivered != 0 || b.Parked != 1 || b.ParkedEvents[0].ID != "old-1" {
		t.Fatalf("Backlog after = %+v, %v; want old-1 parked", b, err)
	}
}

// testOutboxParksPermanentFailure: an event the broker can never take is
// parked with its error, the events after it (of its aggregate too) are
// delivered, a transient failure still stops the pass, and Unpark returns
// the parked event, first in line. Add refuses a payload over the limit.
func testOutboxParksPermanentFailure(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	db, ctx := f.store.DB(), context.Background()
	ob := outbox.New(db, f.store.Dialect(), f.clock.Now, outbox.WithMaxPayload(8))
	tx, _ := db.Begin()
	_, err := ob.Add(ctx, tx, outbox.Event{ID: "huge", Topic: "t", Payload: []byte("123456789")})
	var tl *outbox.PayloadTooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, outbox.ErrPayloadTooLarge) || tl.Size != 9 || tl.Limit != 8 {
		t.Fatalf("Add of 9 bytes over a limit of 8: %v; want a *PayloadTooLargeError", err)
	}
	tx.Rollback()
	addEvents(t, ob, db, outbox.Event{ID: "a1", Topic: "order.a"}, outbox.Event{ID: "a2", Topic: "order.a"},
		outbox.Event{ID: "b1", Topic: "order.b"}, outbox.Event{ID: "b2", Topic: "order.b"})
	var published []string
	broken, flaky := true, true
	relay := &outbox.Relay{Outbox: ob, Publish: func(ctx context.Context, e outbox.Event) error {
		switch {
		case e.ID == "a1" && broken:
			return outbox.Permanent(errors.New("maximum payload exceeded " + strings.Repeat("x", 4000)))
		case e.ID == "b2" && flaky:
			flaky = false
			return errors.New("broker restarting")
		}
		published = append(published, e.ID)
		return nil
	}}
	n, err := relay.Once(ctx)
	var pe *outbox.ParkedError
	if n != 2 || !errors.As(err, &pe) || pe.EventID != "a1" || !strings.Contains(err.Error(), "broker restarting") {
		t.Fatalf("pass 1 delivered %d, err %v; want a2 and b1 delivered, a1 parked, b2 stopped by the transient error", n, err)
	}
	if n, err := relay.Once(ctx); n != 1 || err != nil {
		t.Fatalf("pass 2 delivered %d, err %v; want b2", n, err)
	}
	b, err := ob.Backlog(ctx, 10)
	if err != nil || b.Undelivered != 0 || b.Parked != 1 || len(b.ParkedEvents) != 1 {
		t.Fatalf("Backlog = %+v, %v; want only a1, parked", b, err)
	}
	p := b.ParkedEvents[0]
	if p.ID != "a1" || p.Attempts != 1 || !p.ParkedAt.Equal(f.clock.Now()) || len(p.LastError) > 1024 || !strings.Contains(p.LastError, "maximum payload") {
		t.Fatalf("parked event %+v; want a1, 1 attempt, parked now, its error cut to 1 KiB", p)
	}
	if err := ob.Unpark(ctx, "a2"); !errors.Is(err, outbox.ErrNotParked) {
		t.Fatalf("Unpark of a delivered event: %v; want ErrNotParked", err)
	}
	addEvents(t, ob, db, outbox.Event{ID: "a3", Topic: "order.a"})
	broken = false
	if err := ob.Unpark(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if n, err := relay.Once(ctx); n != 2 || err != nil {
		t.Fatalf("after Unpark: delivered %d, err %v; want a1 and a3", n, err)
	}
	if got, want := strings.Join(published, " "), "a2 b1 b2 a1 a3"; got != want {
		t.Fatalf("published %s; want %s (a1 after its aggregate's a2, once unparked first in line)", got, want)
	}
}

// testConsumerParkAndRetry: a parked event is listed (twice parked, one
// row), RetryParked applies it once and removes the row; events of two
// sources with one id are two rows and two applies.
func testConsumerParkAndRetry(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	ctx := context.Background()
	apply := func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		_, err := tx.ExecContext(ctx, f.store.Dialect().Rebind(`INSERT INTO effects (event_id, order_id) VALUES (?, ?)`), e.Source+"/"+e.ID, string(e.Payload))
		return err
	}
	boom := errors.New("apply failed: " + strings.Repeat("é", 1000))
	for i, src := range []string{"shop", "shop", "billing"} {
		e := outbox.Event{ID: "evt-1", Topic: "order.created", Source: src, Payload: []byte("p-" + src)}
		if err := f.ob.Park(ctx, "mailer", e, 10+i, boom); err != nil {
			t.Fatal(err)
		}
	}
	n, list, err := f.ob.Parked(ctx, 10)
	// Equal parked_at: ordered by consumer, source, id.
	if err != nil || n != 2 || len(list) != 2 || list[1].Event.Source != "shop" || list[1].Deliveries != 11 ||
		list[1].PayloadBytes != 6 || len(list[1].LastError) > 1024 || !strings.HasPrefix(list[1].LastError, "apply failed") {
		t.Fatalf("Parked = %d %+v %v; want billing's row and shop's (11 deliveries, error cut)", n, list, err)
	}
	for _, src := range []string{"shop", "billing"} {
		if ok, err := f.ob.RetryParked(ctx, "mailer", src, "evt-1", apply); !ok || err != nil {
			t.Fatalf("RetryParked %s: %v %v; want applied", src, ok, err)
		}
	}
	if _, err := f.ob.RetryParked(ctx, "mailer", "shop", "evt-1", apply); !errors.Is(err, outbox.ErrNotParked) {
		t.Fatalf("second RetryParked: %v; want ErrNotParked", err)
	}
	if ok, err := f.ob.Consume(ctx, "mailer", outbox.Event{ID: "evt-1", Source: "shop"}, apply); ok || err != nil {
		t.Fatalf("redelivery after the retry applied %v (%v); want the dedupe", ok, err)
	}
	if got := f.count("effects"); got != 2 {
		t.Fatalf("%d effects; want 2 (one per source)", got)
	}
	if n, _, _ := f.ob.Parked(ctx, 10); n != 0 {
		t.Fatalf("%d rows still parked", n)
	}
}

package idemnats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// TestRelayDiesAfterPublish: the relay publishes an event and dies before
// marking it delivered. Its next pass publishes it again; JetStream answers
// Duplicate and stores one message. Then the stream forgets the id (it is
// recreated, as when the relay stayed down past the duplicate window) and
// the event is republished once more: the stream stores it, and the
// consumer's dedupe acks it without applying.
func TestRelayDiesAfterPublish(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	cons := setup(t, js, 30*time.Second)
	prod, sink := openSQLite(t, "producer"), openSQLite(t, "consumer")
	const events = 3
	for i := range events {
		prod.write(t, fmt.Sprintf("evt-%d", i), "order.created", fmt.Sprintf("ord-%d", i))
	}
	pub := &Publisher{JS: js, Prefix: testPrefix, Stream: testStream}
	var acks []*jetstream.PubAck
	killed := false
	relay := &outbox.Relay{Outbox: prod.ob, Batch: 10, Publish: func(ctx context.Context, e outbox.Event) error {
		ack, err := pub.PublishAck(ctx, e)
		if err != nil {
			return err
		}
		if e.ID == "evt-1" {
			acks = append(acks, ack)
		}
		if e.ID == "evt-1" && !killed {
			killed = true
			return errors.New("killed after the PubAck, before the mark")
		}
		return nil
	}}
	ctx := context.Background()
	if n, err := relay.Once(ctx); n != 1 || err == nil {
		t.Fatalf("first pass marked %d (err %v); want 1, then the kill", n, err)
	}
	if n, err := relay.Once(ctx); n != 2 || err != nil {
		t.Fatalf("second pass marked %d (err %v); want the 2 left", n, err)
	}
	if len(acks) != 2 || acks[0].Duplicate || !acks[1].Duplicate || acks[0].Sequence != acks[1].Sequence {
		t.Fatalf("evt-1 PubAcks %+v; want a first store, then a Duplicate of the same sequence", acks)
	}
	wantStreamMsgs(t, js, events)

	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: sink.apply(nil)}
	handle(t, c, cons, events, events)
	wantExactlyOnce(t, sink, events)

	// The stream forgets: recreated empty, with its consumer.
	if err := js.DeleteStream(ctx, testStream); err != nil {
		t.Fatal(err)
	}
	cons = setup(t, js, 30*time.Second)
	if _, err := prod.db.Exec(`UPDATE idem_outbox SET delivered_at = NULL WHERE event_id = 'evt-1'`); err != nil {
		t.Fatal(err)
	}
	if n, err := relay.Once(ctx); n != 1 || err != nil || acks[2].Duplicate {
		t.Fatalf("republish marked %d (err %v, duplicate %v); want 1 stored anew", n, err, acks[2].Duplicate)
	}
	handle(t, c, cons, 1, 0)
	wantExactlyOnce(t, sink, events)
}

// TestConsumerDiesBeforeAck: the consumer commits the effect of evt-1 and
// its connection dies before the ack. A consumer on a new connection gets
// the redelivery after AckWait, finds the id and acks it without applying.
func TestConsumerDiesBeforeAck(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	setup(t, js, 300*time.Millisecond)
	prod, sink := openSQLite(t, "producer"), openSQLite(t, "consumer")
	const events = 3
	for i := range events {
		prod.write(t, fmt.Sprintf("evt-%d", i), "order.created", fmt.Sprintf("ord-%d", i))
	}
	relay := &outbox.Relay{Outbox: prod.ob, Publish: (&Publisher{JS: js, Prefix: testPrefix}).Publish}
	if n, err := relay.Once(context.Background()); n != events || err != nil {
		t.Fatalf("relay marked %d (err %v); want %d", n, err, events)
	}

	doomed, doomedJS := b.connect()
	apply := sink.apply(nil)
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		err := apply(ctx, tx, e)
		if e.ID == "evt-1" {
			doomed.Close() // the process dies: the commit still happens, the ack cannot
		}
		return err
	}}
	cons := durable(t, doomedJS, 300*time.Millisecond)
	var lostAck error
	for range 2 {
		m, err := cons.Next()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Handle(context.Background(), m); err != nil {
			lostAck = err
		}
	}
	if lostAck == nil {
		t.Fatal("the ack after the dead connection succeeded; the test did not kill the consumer")
	}
	if rows, _ := sink.effects(t); rows != 2 {
		t.Fatalf("%d effects committed before the kill; want 2", rows)
	}

	_, js2 := b.connect()
	c.Apply = apply
	redelivered := handle(t, c, durable(t, js2, 300*time.Millisecond), 2, 1)
	if redelivered["evt-1"] < 2 {
		t.Fatalf("evt-1 delivered %d times; want a redelivery", redelivered["evt-1"])
	}
	wantExactlyOnce(t, sink, events)
}

// handle fetches n messages from cons through c.Handle and checks that
// wantApplied of them were applied; it returns each event's delivery count.
func handle(t *testing.T, c *Consumer, cons jetstream.Consumer, n, wantApplied int) map[string]uint64 {
	t.Helper()
	delivered := map[string]uint64{}
	applied := 0
	for range n {
		m, err := cons.Next(jetstream.FetchMaxWait(30 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		meta, err := m.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		ok, err := c.Handle(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := EventOf(m)
		delivered[e.ID] = meta.NumDelivered
		if ok {
			applied++
		}
	}
	if applied != wantApplied {
		t.Fatalf("applied %d of %d messages; want %d", applied, n, wantApplied)
	}
	return delivered
}

func wantStreamMsgs(t *testing.T, js jetstream.JetStream, n uint64) {
	t.Helper()
	s, err := js.Stream(context.Background(), testStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != n {
		t.Fatalf("stream holds %d messages; want %d", info.State.Msgs, n)
	}
}

package idemnats

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// TestTwoOutboxesOneStream: two outboxes (two SQLite databases) publish
// into one stream, and both write an event evt-1. With a Source each, both
// are stored and applied; a republish of shop's evt-1 is still a Duplicate,
// and a copy that gets past the stream is still skipped by the consumer.
func TestTwoOutboxesOneStream(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	cons := setup(t, js, 30*time.Second)
	shop, billing, sink := openSQLite(t, "shop"), openSQLite(t, "billing"), openSQLite(t, "consumer")
	shop.write(t, "evt-1", "order.created", "from shop")
	shop.write(t, "evt-2", "order.created", "from shop")
	billing.write(t, "evt-1", "invoice.created", "from billing")
	var acks []*jetstream.PubAck
	relay := func(s *side, source string) *outbox.Relay {
		pub := &Publisher{JS: js, Prefix: testPrefix, Stream: testStream, Source: source}
		return &outbox.Relay{Outbox: s.ob, Publish: func(ctx context.Context, e outbox.Event) error {
			ack, err := pub.PublishAck(ctx, e)
			acks = append(acks, ack)
			return err
		}}
	}
	ctx := context.Background()
	shopRelay, billingRelay := relay(shop, "shop"), relay(billing, "billing")
	for _, r := range []*outbox.Relay{shopRelay, billingRelay} {
		if _, err := r.Once(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if acks[2].Duplicate {
		t.Fatal("billing's evt-1 was taken for a Duplicate of shop's: marked delivered, never stored")
	}
	wantStreamMsgs(t, js, 3)
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: sink.apply(nil)}
	handle(t, c, cons, 3, 3)
	if rows, distinct := sink.effects(t); rows != 3 || distinct != 2 {
		t.Fatalf("%d effects over %d ids; want 3 (evt-1 of each source, evt-2)", rows, distinct)
	}

	// shop's relay died before its mark: the republish is a Duplicate.
	if _, err := shop.db.Exec(`UPDATE idem_outbox SET delivered_at = NULL WHERE event_id = 'evt-1'`); err != nil {
		t.Fatal(err)
	}
	if n, err := shopRelay.Once(ctx); n != 1 || err != nil || !acks[len(acks)-1].Duplicate {
		t.Fatalf("republish: %d, %v; want a Duplicate PubAck", n, err)
	}
	wantStreamMsgs(t, js, 3)
	// A copy past the duplicate window (the stream is recreated): the
	// consumer's dedupe skips it.
	if err := js.DeleteStream(ctx, testStream); err != nil {
		t.Fatal(err)
	}
	cons = setup(t, js, 30*time.Second)
	copyMsg := &Publisher{JS: js, Prefix: testPrefix, Source: "shop"}
	if err := copyMsg.Publish(ctx, outbox.Event{ID: "evt-1", Topic: "order.created", Payload: []byte("from shop")}); err != nil {
		t.Fatal(err)
	}
	handle(t, c, cons, 1, 0)
	if rows, _ := sink.effects(t); rows != 3 {
		t.Fatalf("%d effects after shop's copy; want 3", rows)
	}
}

func TestSourceIsChecked(t *testing.T) {
	pub := &Publisher{Prefix: "events", Source: "shop:eu"} // no JS: sending would panic
	err := pub.Publish(context.Background(), outbox.Event{ID: "e", Topic: "a.>"})
	if !errors.Is(err, ErrSource) || errors.Is(err, outbox.ErrPermanent) {
		t.Fatalf("invalid Source: %v; want ErrSource, not permanent (the event is not at fault)", err)
	}
}

// TestOneEventIDFromTwoOutboxes: two services' outboxes publish into one
// stream without a Source, and both wrote an event evt_42, with other
// payloads. The second PubAck is a Duplicate of the first's message; the
// Publisher compares what the stream holds under the id with its own event,
// finds another event, and fails permanently, so billing's evt_42 is parked
// (listed, with why, by Backlog) instead of marked delivered and lost. A
// republish of shop's own evt_42 is still a Duplicate that succeeds.
func TestOneEventIDFromTwoOutboxes(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	setup(t, js, 30*time.Second)
	shop, billing := openSQLite(t, "shop"), openSQLite(t, "billing")
	shop.write(t, "evt_42", "order.created", "from shop")
	billing.write(t, "evt_42", "invoice.created", "from billing")
	pub := &Publisher{JS: js, Prefix: testPrefix, Stream: testStream}
	ctx := context.Background()
	shopRelay := &outbox.Relay{Outbox: shop.ob, Publish: pub.Publish}
	if n, err := shopRelay.Once(ctx); n != 1 || err != nil {
		t.Fatalf("shop: delivered %d, %v", n, err)
	}
	n, err := (&outbox.Relay{Outbox: billing.ob, Publish: pub.Publish}).Once(ctx)
	var pe *outbox.ParkedError
	if n != 0 || !errors.As(err, &pe) || pe.EventID != "evt_42" || !errors.Is(err, ErrMsgIDCollision) {
		t.Fatalf("billing: delivered %d, err %v; want evt_42 parked with ErrMsgIDCollision, not delivered", n, err)
	}
	bl, err := billing.ob.Backlog(ctx, 10)
	if err != nil || bl.Parked != 1 || !strings.Contains(bl.ParkedEvents[0].LastError, "another message") {
		t.Fatalf("billing's backlog %+v, %v; want evt_42 parked, saying why", bl, err)
	}
	wantStreamMsgs(t, js, 1)

	// shop's relay died before its mark: its republish is its own message.
	if _, err := shop.db.Exec(`UPDATE idem_outbox SET delivered_at = NULL WHERE event_id = 'evt_42'`); err != nil {
		t.Fatal(err)
	}
	if n, err := shopRelay.Once(ctx); n != 1 || err != nil {
		t.Fatalf("shop's republish: delivered %d, %v; want its Duplicate taken as delivered", n, err)
	}
	wantStreamMsgs(t, js, 1)
}

package idemnats

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// TestApplyFailureIsRedelivered: an apply that fails records nothing and
// Naks the message; the redelivery applies it, once.
func TestApplyFailureIsRedelivered(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	cons := setup(t, js, 30*time.Second)
	sink := openSQLite(t, "consumer")
	pub := &Publisher{JS: js, Prefix: testPrefix}
	if err := pub.Publish(context.Background(), outbox.Event{ID: "evt-0", Topic: "order.created", Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	apply := sink.apply(nil)
	boom := errors.New("mail server down")
	fail := true
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		if err := apply(ctx, tx, e); err != nil || fail {
			fail = false
			return errors.Join(err, boom)
		}
		return nil
	}}
	m, err := cons.Next()
	if err != nil {
		t.Fatal(err)
	}
	var ae *ApplyError
	if ok, err := c.Handle(context.Background(), m); ok || !errors.As(err, &ae) || !errors.Is(err, boom) || ae.EventID != "evt-0" {
		t.Fatalf("failing apply: applied %v, err %v; want an *ApplyError for evt-0 wrapping the cause", ok, err)
	}
	if rows, _ := sink.effects(t); rows != 0 {
		t.Fatalf("a failed apply left %d effects", rows)
	}
	delivered := handle(t, c, cons, 1, 1)
	if delivered["evt-0"] != 2 {
		t.Fatalf("evt-0 delivered %d times; want the Nak'd redelivery", delivered["evt-0"])
	}
	wantExactlyOnce(t, sink, 1)
}

// TestForeignMessageIsTerminated: a message without an event id (published
// by something other than Publisher) cannot be deduped; it is terminated,
// never applied, and the next message is handled as usual.
func TestForeignMessageIsTerminated(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	cons := setup(t, js, 30*time.Second)
	sink := openSQLite(t, "consumer")
	ctx := context.Background()
	if _, err := js.Publish(ctx, testPrefix+".order.created", []byte("no id")); err != nil {
		t.Fatal(err)
	}
	long := outbox.Event{ID: strings.Repeat("i", maxEventID+1), Topic: "order.created"}
	if err := (&Publisher{JS: js, Prefix: testPrefix}).Publish(ctx, long); err != nil {
		t.Fatal(err)
	}
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: sink.apply(nil)}
	for range 2 {
		m, err := cons.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := c.Handle(ctx, m); ok || !errors.Is(err, ErrForeign) {
			t.Fatalf("foreign message: applied %v, err %v; want ErrForeign", ok, err)
		}
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for m := range batch.Messages() {
		t.Fatalf("after Term: %s redelivered", m.Subject())
	}
	if rows, _ := sink.effects(t); rows != 0 {
		t.Fatalf("foreign messages applied: %d effects", rows)
	}
}

func TestSubject(t *testing.T) {
	for _, tc := range []struct{ topic, want string }{
		{"order.created", "events.order.created"},
		{"order.ord_42.created", "events.order.ord_42.created"},
		{"", ""}, {"a..b", ""}, {".a", ""}, {"a.", ""}, {"a.*.b", ""}, {"a.>", ""},
		{"a b", ""}, {"a\tb", ""}, {"a\x00b", ""}, {"a*b", ""}, {strings.Repeat("a", maxTopic+1), ""},
	} {
		got, err := Subject("events", outbox.Event{ID: "evt-1", Topic: tc.topic})
		var te *TopicError
		switch {
		case tc.want != "" && (got != tc.want || err != nil):
			t.Errorf("Subject(%q) = %q, %v; want %q", tc.topic, got, err, tc.want)
		case tc.want == "" && (!errors.Is(err, ErrTopic) || !errors.As(err, &te) || te.EventID != "evt-1"):
			t.Errorf("Subject(%q) = %q, %v; want a *TopicError for evt-1", tc.topic, got, err)
		}
	}
}

// TestPublishRefusesBeforeSending: an event without an id or with a bad
// topic is refused without reaching the broker, so the relay keeps it
// pending instead of marking it.
func TestPublishRefusesBeforeSending(t *testing.T) {
	pub := &Publisher{Prefix: "events"} // no JS: sending would panic
	if err := pub.Publish(context.Background(), outbox.Event{Topic: "a"}); !errors.Is(err, ErrNoEventID) {
		t.Errorf("no id: %v; want ErrNoEventID", err)
	}
	if err := pub.Publish(context.Background(), outbox.Event{ID: "e", Topic: "a.>"}); !errors.Is(err, ErrTopic) {
		t.Errorf("wildcard topic: %v; want ErrTopic", err)
	}
}

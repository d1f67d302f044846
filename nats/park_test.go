package idemnats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// TestPoisonMessageIsParked: an event whose apply always fails, first in a
// stream read with MaxAckPending 1, is Nak'd with growing delays, parked on
// its fourth delivery and terminated; the three events behind it are then
// applied in order. The parked row is listed, and Retry applies the event
// once its cause is fixed.
func TestPoisonMessageIsParked(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, StreamConfig(testStream, testPrefix, 0)); err != nil {
		t.Fatal(err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, testStream, jetstream.ConsumerConfig{
		Durable: testDurabl, AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second, MaxAckPending: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	pub := &Publisher{JS: js, Prefix: testPrefix}
	for i := range 4 {
		e := outbox.Event{ID: fmt.Sprintf("evt-%d", i), Topic: "order.o1.changed", Payload: []byte(fmt.Sprint(i))}
		if err := pub.Publish(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	sink := openSQLite(t, "consumer")
	applied := make(chan string, 8)
	apply := sink.apply(applied)
	var mu sync.Mutex
	var poisonRuns int
	var delays []time.Duration
	broken := errors.New("template missing")
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, MaxDeliveries: 4,
		Apply: func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
			mu.Lock()
			defer mu.Unlock()
			if e.ID == "evt-0" && broken != nil {
				poisonRuns++
				return broken
			}
			return apply(ctx, tx, e)
		},
		Backoff: func(n int) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			d := time.Duration(n) * 20 * time.Millisecond // growing, and short for the test
			delays = append(delays, d)
			return d
		},
	}
	errs := make(chan error, 16)
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(runCtx, cons, func(err error) { errs <- err }) })
	waitApplied(t, applied, 3)
	cancel()
	wg.Wait()

	if poisonRuns != 4 || fmt.Sprint(delays) != "[20ms 40ms 60ms]" {
		t.Fatalf("poison applied %d times with Nak delays %v; want 4 runs, delays 20ms 40ms 60ms", poisonRuns, delays)
	}
	var last *ApplyError
	for len(errs) > 0 {
		errors.As(<-errs, &last)
	}
	if last == nil || !last.Parked || last.Deliveries != 4 || !errors.Is(last, outbox.ErrParked) || !errors.Is(last, broken) {
		t.Fatalf("last reported error %v; want evt-0 parked after 4 deliveries", last)
	}
	wantAppliedOrder(t, sink, "evt-1 evt-2 evt-3")
	n, parked, err := sink.ob.Parked(ctx, 10)
	if err != nil || n != 1 || parked[0].Event.ID != "evt-0" || parked[0].Deliveries != 4 ||
		parked[0].LastError != broken.Error() || parked[0].Consumer != testDurabl || parked[0].PayloadBytes != 1 {
		t.Fatalf("parked: %d %+v %v; want evt-0, 4 deliveries, its error", n, parked, err)
	}

	broken = nil // the operator fixed the template
	if ok, err := c.Retry(ctx, "", "evt-0"); !ok || err != nil {
		t.Fatalf("Retry: applied %v, %v", ok, err)
	}
	wantExactlyOnce(t, sink, 4)
	if n, _, _ := sink.ob.Parked(ctx, 10); n != 0 {
		t.Fatalf("%d events still parked after the retry", n)
	}
}

// wantAppliedOrder checks the event ids of the effects table in apply order.
func wantAppliedOrder(t *testing.T, s *side, want string) {
	t.Helper()
	rows, err := s.db.Query(`SELECT event_id FROM effects ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("applied %v; want %s", got, want)
	}
}

// TestOversizedEventIsParked: the broker's max_payload is 2 KiB and the
// outbox holds a 3 KiB event between smaller ones of the same aggregate.
// The relay parks it (listed with its error by Backlog) and delivers the
// others; the consumer applies those three. A stream's MaxMsgSize is a
// permanent failure as well.
func TestOversizedEventIsParked(t *testing.T) {
	b := startBrokerMax(t, 2048)
	_, js := b.connect()
	cons := setup(t, js, 30*time.Second)
	prod, sink := openSQLite(t, "producer"), openSQLite(t, "consumer")
	for i, size := range []int{10, 3 << 10, 10, 10} {
		prod.write(t, fmt.Sprintf("evt-%d", i), "order.o1.changed", strings.Repeat("x", size))
	}
	relay := &outbox.Relay{Outbox: prod.ob, Publish: (&Publisher{JS: js, Prefix: testPrefix, Stream: testStream}).Publish}
	ctx := context.Background()
	n, err := relay.Once(ctx)
	var pe *outbox.ParkedError
	if n != 3 || !errors.As(err, &pe) || pe.EventID != "evt-1" {
		t.Fatalf("relay delivered %d, err %v; want 3 delivered and evt-1 parked", n, err)
	}
	if n, err := relay.Once(ctx); n != 0 || err != nil {
		t.Fatalf("next pass delivered %d, err %v; want nothing: the parked event is not retried", n, err)
	}
	bl, err := prod.ob.Backlog(ctx, 10)
	if err != nil || bl.Undelivered != 0 || bl.Parked != 1 || bl.ParkedEvents[0].ID != "evt-1" ||
		!strings.Contains(bl.ParkedEvents[0].LastError, "maximum payload exceeded") {
		t.Fatalf("backlog %+v, %v; want evt-1 parked with the broker's error", bl, err)
	}
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: sink.apply(nil)}
	handle(t, c, cons, 3, 3)
	wantAppliedOrder(t, sink, "evt-0 evt-2 evt-3")

	small := StreamConfig("SMALL", "small", 0)
	small.MaxMsgSize = 100
	if _, err := js.CreateStream(ctx, small); err != nil {
		t.Fatal(err)
	}
	err = (&Publisher{JS: js, Prefix: "small"}).Publish(ctx, outbox.Event{ID: "e", Topic: "t", Payload: make([]byte, 200)})
	if !errors.Is(err, outbox.ErrPermanent) || !errors.Is(err, jetstream.ErrStreamMessageExceedsMaximum) {
		t.Fatalf("over the stream's MaxMsgSize: %v; want a permanent failure", err)
	}
}

package idemnats

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// TestBrokerRestartMidStream: a relay and a consumer run while the broker
// is shut down and started again on the same port and store, and more events
// are written while it is down. Every event is applied exactly once and none
// is left pending: the relay retries what it could not publish, the stream's
// file store keeps what it acked, and the durable consumer resumes.
func TestBrokerRestartMidStream(t *testing.T) {
	b := startBroker(t)
	_, js := b.connect()
	setup(t, js, 2*time.Second)
	prod, sink := openSQLite(t, "producer"), openSQLite(t, "consumer")
	const half = 100
	for i := range half {
		prod.write(t, fmt.Sprintf("evt-%d", i), fmt.Sprintf("order.o%d.created", i%5), "x")
	}
	applied := make(chan string, 4*half)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	relay := &outbox.Relay{Outbox: prod.ob, Batch: 10,
		Publish: (&Publisher{JS: js, Prefix: testPrefix, Timeout: time.Second}).Publish}
	wg.Go(func() { relay.Run(ctx, 5*time.Millisecond, nil) })
	_, cjs := b.connect()
	cons := durable(t, cjs, 2*time.Second)
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: sink.apply(applied)}
	wg.Go(func() { c.Run(ctx, cons, nil) })

	waitApplied(t, applied, half/2)
	b.stop()
	for i := half; i < 2*half; i++ {
		prod.write(t, fmt.Sprintf("evt-%d", i), fmt.Sprintf("order.o%d.created", i%5), "x")
	}
	b.start()
	waitApplied(t, applied, 2*half-half/2)
	cancel()
	wg.Wait()
	wantExactlyOnce(t, sink, 2*half)
	// The cancel may have cut a pass between its PubAcks and its marks, as a
	// stopped process would: the next passes republish those events into the
	// duplicate window and mark them.
	for pass := 0; ; pass++ {
		n, err := relay.Once(context.Background())
		if n == 0 && err == nil {
			break
		}
		if pass == 2*half {
			t.Fatalf("relay still busy after %d passes (last: %d, %v)", pass, n, err)
		}
	}
	if n, err := prod.ob.Pending(context.Background()); n != 0 || err != nil {
		t.Fatalf("%d events still pending (%v)", n, err)
	}
	wantStreamMsgs(t, js, 2*half)
}

package idemnats

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
)

// openPostgres opens a fresh database of cluster as one side.
func openPostgres(t testing.TB, cluster *pgtest.Cluster) *side {
	t.Helper()
	st, err := pgstore.Open(context.Background(), cluster.NewDatabase(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newSide(t, st.DB(), st.Dialect())
}

// TestTwoRelaysKeepOrderPerAggregate: two relays on one PostgreSQL outbox
// and a consumer run side by side over events of four aggregates. While one
// relay holds the oldest pending events, the other publishes nothing (it
// would otherwise overtake them); every event is applied exactly once, and
// each aggregate's events are applied in the order they were written.
func TestTwoRelaysKeepOrderPerAggregate(t *testing.T) {
	cluster := pgtest.Start(t)
	prod, sink := openPostgres(t, cluster), openPostgres(t, cluster)
	b := startBroker(t)
	_, js := b.connect()
	setup(t, js, 30*time.Second)
	const aggs, events = 4, 200
	for i := range events {
		prod.write(t, fmt.Sprintf("evt-%03d", i), fmt.Sprintf("order.a%d.changed", i%aggs), strconv.Itoa(i/aggs))
	}
	applied := make(chan string, events)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	_, cjs := b.connect()
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: sink.apply(applied)}
	wg.Go(func() { c.Run(ctx, durable(t, cjs, 30*time.Second), nil) })

	pub := &Publisher{JS: js, Prefix: testPrefix, Stream: testStream}
	entered, release := make(chan struct{}), make(chan struct{})
	var hold sync.Once
	relayA := &outbox.Relay{Outbox: prod.ob, Batch: 10, Publish: func(ctx context.Context, e outbox.Event) error {
		hold.Do(func() { close(entered); <-release })
		return pub.Publish(ctx, e)
	}}
	relayB := &outbox.Relay{Outbox: prod.ob, Batch: 10, Publish: pub.Publish}
	errA := make(chan error, 1)
	go func() { _, err := relayA.Once(ctx); errA <- err }()
	<-entered
	n, err := relayB.Once(ctx)
	close(release)
	if err := <-errA; err != nil {
		t.Fatal(err)
	}
	if err != nil || n != 0 {
		t.Fatalf("relay B delivered %d events (err %v) while relay A held the oldest ones; want 0", n, err)
	}
	for _, r := range []*outbox.Relay{relayA, relayB} {
		wg.Go(func() { drain(t, r) })
	}
	waitApplied(t, applied, events)
	cancel()
	wg.Wait()
	wantExactlyOnce(t, sink, events)
	wantOrderPerTopic(t, sink)
}

// drain runs passes until nothing is pending.
func drain(t *testing.T, r *outbox.Relay) {
	for pass := 0; pass < 10_000; pass++ {
		if _, err := r.Once(context.Background()); err != nil {
			t.Error(err)
			return
		}
		if n, err := r.Outbox.Pending(context.Background()); n == 0 || err != nil {
			return
		}
	}
	t.Error("relay: events still pending after 10000 passes")
}

// wantOrderPerTopic checks that each topic's payloads (0, 1, 2...) were
// applied in increasing order.
func wantOrderPerTopic(t *testing.T, s *side) {
	t.Helper()
	rows, err := s.db.Query(`SELECT topic, payload FROM effects ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	next := map[string]int{}
	for rows.Next() {
		var topic, payload string
		if err := rows.Scan(&topic, &payload); err != nil {
			t.Fatal(err)
		}
		if payload != strconv.Itoa(next[topic]) {
			t.Fatalf("%s: applied event %s when %d was next", topic, payload, next[topic])
		}
		next[topic]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

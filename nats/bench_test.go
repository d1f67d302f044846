package idemnats

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/pgstore/pgtest"
)

// BenchmarkEndToEnd measures one event's whole path: a business transaction
// writes it to the outbox, the relay publishes it to JetStream (a file-backed
// stream on an embedded broker) and the consumer applies it in its own
// database, deduped by id. One op is one event, so ns/op and allocs/op are per
// event (every goroutine of the process counts: writer, relay, broker,
// consumer; not a PostgreSQL server, which is another process); events/s
// and cpu-µs/event are reported beside them. "live" writes the events while
// the relay and the consumer run; "backlog" writes them all before the clock
// starts, so it measures the relay, the broker and the consumer alone. Run it
// for a fixed count: go test -run XXX -bench EndToEnd -benchtime 3000x
func BenchmarkEndToEnd(b *testing.B) {
	for _, mode := range []string{"live", "backlog"} {
		for _, batch := range []int{10, 100} {
			b.Run(fmt.Sprintf("sqlite/%s/batch=%d", mode, batch), func(b *testing.B) {
				benchEndToEnd(b, openSQLite(b, "producer"), openSQLite(b, "consumer"), batch, mode == "backlog")
			})
			b.Run(fmt.Sprintf("postgres/%s/batch=%d", mode, batch), func(b *testing.B) {
				cluster := pgtest.Start(b)
				benchEndToEnd(b, openPostgres(b, cluster), openPostgres(b, cluster), batch, mode == "backlog")
			})
		}
	}
}

func benchEndToEnd(b *testing.B, prod, sink *side, batch int, backlog bool) {
	write := func() {
		for i := range b.N {
			prod.write(b, fmt.Sprintf("evt-%d", i), fmt.Sprintf("order.o%d.created", i%16), "payload")
		}
	}
	if backlog {
		write()
	}
	br := startBroker(b)
	_, js := br.connect()
	cons := setup(b, js, 30*time.Second)
	applied := make(chan string, b.N)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	c := &Consumer{Outbox: sink.ob, Name: testDurabl, Apply: sink.apply(applied)}
	wg.Go(func() { c.Run(ctx, cons, nil) })
	relay := &outbox.Relay{Outbox: prod.ob, Batch: batch, Publish: (&Publisher{JS: js, Prefix: testPrefix}).Publish}
	wg.Go(func() { relay.Run(ctx, time.Millisecond, nil) })

	b.ReportAllocs()
	b.ResetTimer()
	cpu0, start := cpuTime(), time.Now()
	if !backlog {
		wg.Go(write)
	}
	waitApplied(b, applied, b.N)
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/event")
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

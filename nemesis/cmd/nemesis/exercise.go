package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/nemesis/check"
)

// exercise runs the workload under the schedule, waits for the clients'
// reconcilers to go quiet and the events to drain, and checks the history.
func (t *topo) exercise(ctx context.Context) (*check.Report, error) {
	var kinds []string
	for _, k := range check.FaultKinds { // the canonical order keeps a seed's schedule
		if slices.Contains(strings.Split(t.o.faults, ","), k) {
			kinds = append(kinds, k)
		}
	}
	faults := plan(t.o.seed, t.o.duration, t.o.clients, kinds)
	printPlan(t.o.seed, faults)
	start := time.Now()
	t.until = start.Add(t.o.duration)
	for i := range t.o.clients {
		c := &clientSlot{name: fmt.Sprintf("c%d", i+1)}
		t.clients = append(t.clients, c)
		if err := t.startClient(c, t.o.seed*1000+uint64(i)*10); err != nil {
			return nil, err
		}
	}
	counts := map[string]int{}
	t.inject(ctx, start, faults, counts)
	fmt.Println("nemesis: faults over; waiting for the clients' workload and reconcilers")
	for _, c := range t.clients {
		t.mu.Lock()
		p := c.proc
		t.mu.Unlock()
		select {
		case <-p.Done():
			if err := p.Err(); err != nil {
				fmt.Printf("nemesis: client %s: %v (see its log)\n", c.name, err)
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("clients still running at the run's bound: %w", ctx.Err())
		}
	}
	elapsed := t.o.duration
	fmt.Printf("nemesis: clients quiet %v after the workload ended\n", time.Since(t.until).Round(100*time.Millisecond))
	return t.collect(ctx, counts, elapsed)
}

// collect sweeps the ledger once more, waits for the outbox to drain to
// the consumer, and reads everything the checker needs.
func (t *topo) collect(ctx context.Context, faults map[string]int, elapsed time.Duration) (*check.Report, error) {
	dsn := t.pg.NodeDSN(t.pg.Primary, "shop")
	store, err := pgstore.Open(ctx, dsn, 4)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	// The servers' sweepers run every second; one more pass here, after
	// every lease has run out, is the "after the sweeper" of the check.
	time.Sleep(3 * time.Second)
	if _, err := (&ledger.Sweeper{Store: store}).Sweep(ctx); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	in := check.Input{Seed: t.o.seed, Faults: faults, Elapsed: elapsed}
	if err := t.readClients(ctx, &in); err != nil {
		return nil, err
	}
	if err := check.ReadShop(ctx, store.DB(), &in); err != nil {
		return nil, err
	}
	if !t.o.noBroker {
		events, err := t.drainEvents(ctx, store.DB())
		if err != nil {
			return nil, err
		}
		in.Events = events
	}
	return check.Check(in), nil
}

func (t *topo) readClients(ctx context.Context, in *check.Input) error {
	var records []check.Record
	var entries []check.JournalEntry
	for _, c := range t.clients {
		rs, err := check.ReadHistory(filepath.Join(t.dir, c.name+".history.jsonl"))
		if err != nil {
			return err
		}
		records = append(records, rs...)
		es, err := check.ReadJournal(ctx, filepath.Join(t.dir, c.name+".journal.db"))
		if err != nil {
			return err
		}
		entries = append(entries, es...)
	}
	in.Intents, in.Latencies = check.Intents(records, entries)
	return nil
}

// drainEvents waits until the consumer applied every event the outbox
// holds, or until it applied nothing new for ten seconds (a lost event
// never arrives), then counts each event's applications.
func (t *topo) drainEvents(ctx context.Context, shop *sql.DB) (map[string]int, error) {
	consumer, err := sql.Open("sqlite", "file:"+filepath.Join(t.dir, "consumer.db")+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer consumer.Close()
	last, progress := -1, time.Now()
	for {
		events, err := check.ReadEvents(ctx, shop, consumer)
		if err != nil && time.Since(progress) > 30*time.Second {
			return nil, err
		}
		if err == nil {
			n := applied(events)
			if n != last {
				last, progress = n, time.Now()
			}
			if n == len(events) || time.Since(progress) > 10*time.Second {
				return events, nil
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// applied counts the events applied at least once.
func applied(events map[string]int) int {
	n := 0
	for _, c := range events {
		if c > 0 {
			n++
		}
	}
	return n
}

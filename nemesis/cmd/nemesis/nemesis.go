package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"time"

	"github.com/idemgen/idemgen/nemesis/topology"
)

// fault is one planned fault: its kind (check.FaultKinds), when it starts
// (from the workload's start) and what it hits.
type fault struct {
	at     time.Duration
	kind   string
	target int
	toxic  toxicPlan
}

// toxicPlan is a toxic on one link for a while.
type toxicPlan struct {
	link  string
	toxic topology.Toxic
	hold  time.Duration
}

// toxics are the toxics the nemesis draws from: latency, resets and a cut
// after the request is written (the first byte of the answer closes the
// connection), on the clients' link and on the servers' database links.
func toxics() []toxicPlan {
	lat := topology.Toxic{Name: "latency", Type: "latency", Stream: "downstream", Attributes: `{"latency":300,"jitter":150}`}
	reset := topology.Toxic{Name: "reset", Type: "reset_peer", Stream: "downstream", Attributes: `{"timeout":50}`}
	cut := topology.Toxic{Name: "cut", Type: "limit_data", Stream: "downstream", Attributes: `{"bytes":1}`}
	var out []toxicPlan
	for _, link := range []string{"balancer", "db0", "db1"} {
		out = append(out, toxicPlan{link, lat, 3 * time.Second}, toxicPlan{link, reset, time.Second}, toxicPlan{link, cut, 1500 * time.Millisecond})
	}
	return out
}

// plan draws the schedule from the seed: one fault every few seconds
// between the workload's fifth second and ten seconds before its end, the
// kinds dealt in shuffled rounds so that every kind comes early.
func plan(seed uint64, duration time.Duration, clients int, kinds []string) []fault {
	rng := rand.New(rand.NewPCG(seed, 0x6e656d65))
	tox := toxics()
	var out []fault
	var round []string
	for at := 5 * time.Second; len(kinds) > 0 && at < duration-10*time.Second; at += time.Duration(5000+rng.IntN(3000)) * time.Millisecond {
		if len(round) == 0 {
			round = append([]string(nil), kinds...)
			rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		f := fault{at: at, kind: round[0]}
		round = round[1:]
		switch f.kind {
		case "kill-server", "pause-server", "kill-broker":
			f.target = rng.IntN(3)
		case "kill-client":
			f.target = rng.IntN(clients)
		case "toxic":
			f.toxic = tox[rng.IntN(len(tox))]
		}
		out = append(out, f)
	}
	return out
}

func (f fault) String() string {
	switch f.kind {
	case "kill-server", "pause-server":
		return fmt.Sprintf("+%v %s server%d", f.at, f.kind, f.target+1)
	case "kill-broker":
		return fmt.Sprintf("+%v %s nats%d", f.at, f.kind, f.target+1)
	case "kill-client":
		return fmt.Sprintf("+%v %s c%d", f.at, f.kind, f.target+1)
	case "toxic":
		return fmt.Sprintf("+%v toxic %s on %s for %v", f.at, f.toxic.toxic.Name, f.toxic.link, f.toxic.hold)
	}
	return fmt.Sprintf("+%v %s", f.at, f.kind)
}

// printPlan prints the schedule, so that a failing seed can be read and run
// again.
func printPlan(seed uint64, faults []fault) {
	parts := make([]string, len(faults))
	for i, f := range faults {
		parts[i] = f.String()
	}
	fmt.Printf("nemesis: seed %d, schedule: %s\n", seed, strings.Join(parts, "; "))
}

// inject runs the schedule against the topology, one fault at a time,
// counting the faults injected by kind.
func (t *topo) inject(ctx context.Context, start time.Time, faults []fault, counts map[string]int) {
	for _, f := range faults {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(start.Add(f.at))):
		}
		s := time.Now()
		if err := t.apply(ctx, f); err != nil {
			fmt.Printf("nemesis: %s failed: %v\n", f, err)
			continue
		}
		counts[f.kind]++
		fmt.Printf("nemesis: %s done in %v\n", f, time.Since(s).Round(10*time.Millisecond))
	}
}

func (t *topo) apply(ctx context.Context, f fault) error {
	switch f.kind {
	case "kill-server":
		// Kill it mid-transaction: the database links are slowed first, so
		// the server dies holding executions that reserved keys, some
		// about to commit.
		err := t.whileHeld([]string{"db0", "db1"}, 200, func() { t.servers[f.target].Kill() })
		if err != nil {
			return err
		}
		time.Sleep(time.Second)
		return t.startServer(f.target)
	case "pause-server":
		// Longer than the ledger's lease: another server takes the paused
		// one's keys over, and the paused one must not complete them.
		p := t.servers[f.target]
		p.Signal(syscall.SIGSTOP)
		time.Sleep(4 * time.Second)
		return p.Signal(syscall.SIGCONT)
	case "failover":
		return t.pg.Failover(ctx)
	case "kill-broker":
		n := &t.natsNodes[f.target]
		n.proc.Kill()
		time.Sleep(2 * time.Second)
		routes := make([]string, len(t.natsNodes))
		for i, m := range t.natsNodes {
			routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", m.clusterPort)
		}
		return t.startNATSNode(f.target, strings.Join(routes, ","))
	case "kill-client":
		return t.killClient(f.target)
	case "toxic":
		if err := t.links.AddToxic(f.toxic.link, f.toxic.toxic); err != nil {
			return err
		}
		time.Sleep(f.toxic.hold)
		return t.links.RemoveToxic(f.toxic.link, f.toxic.toxic.Name)
	}
	return fmt.Errorf("unknown fault kind %q", f.kind)
}

// killClient kills a client process mid-call (SIGKILL) and starts it
// again on the same journal and history: its reconciler settles what the
// dead process left unresolved. The answers to the clients are held back
// for a moment first, so that the process dies with calls in flight that
// the servers have executed.
func (t *topo) killClient(i int) error {
	c := t.clients[i]
	t.mu.Lock()
	p := c.proc
	c.restarts++
	t.mu.Unlock()
	if err := t.whileHeld([]string{"balancer"}, 800, p.Kill); err != nil {
		return err
	}
	return t.startClient(c, t.o.seed*1000+uint64(i)*10+uint64(c.restarts))
}

// whileHeld slows the answers on links by ms milliseconds, lets calls
// pile up behind them for 600ms, runs fault, and lifts the latency.
func (t *topo) whileHeld(links []string, ms int, fault func()) error {
	hold := topology.Toxic{Name: "hold", Type: "latency", Stream: "downstream", Attributes: fmt.Sprintf(`{"latency":%d}`, ms)}
	for _, l := range links {
		if err := t.links.AddToxic(l, hold); err != nil {
			return err
		}
	}
	time.Sleep(600 * time.Millisecond)
	fault()
	for _, l := range links {
		if err := t.links.RemoveToxic(l, hold.Name); err != nil {
			return err
		}
	}
	return nil
}

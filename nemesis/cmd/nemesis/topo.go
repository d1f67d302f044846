package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	idemnats "github.com/idemgen/idemgen/nats"
	"github.com/idemgen/idemgen/nemesis/topology"
)

// topo is one run's topology: what was started, and how to start each
// part again after the nemesis killed it.
type topo struct {
	o     runOptions
	dir   string
	self  string
	procs *topology.Procs
	pg    *topology.PG
	links *topology.Links
	// dbPorts are the toxiproxy ports in front of each database node.
	dbPorts     [2]int
	serverPorts []int
	servers     []*topology.Proc
	balancer    int // the toxiproxy port in front of HAProxy
	natsNodes   []natsNode
	natsURLs    string
	until       time.Time

	mu      sync.Mutex
	clients []*clientSlot
}

type natsNode struct {
	name              string
	port, clusterPort int
	proc              *topology.Proc
}

// clientSlot is one client process and its restarts.
type clientSlot struct {
	name     string
	proc     *topology.Proc
	restarts int
}

// up starts everything but the clients, in dependency order.
func (t *topo) up(ctx context.Context) error {
	var err error
	if t.self, err = os.Executable(); err != nil {
		return err
	}
	step := func(what string) func() {
		s := time.Now()
		return func() { fmt.Printf("nemesis: %s up in %v\n", what, time.Since(s).Round(10*time.Millisecond)) }
	}
	done := step("PostgreSQL primary + synchronous standby")
	if t.pg, err = topology.StartPG(ctx, t.procs, t.o.pgBin, filepath.Join(t.dir, "pg")); err != nil {
		return err
	}
	done()
	t.links = topology.NewLinks()
	for i := range t.dbPorts {
		if t.dbPorts[i], err = t.links.Add(fmt.Sprintf("db%d", i), fmt.Sprintf("127.0.0.1:%d", t.pg.Nodes[i].Port)); err != nil {
			return err
		}
	}
	if !t.o.noBroker {
		done = step("NATS JetStream cluster (3 nodes, stream R3)")
		if err := t.startNATS(ctx); err != nil {
			return err
		}
		done()
	}
	done = step("3 servers + HAProxy")
	if err := t.startServers(); err != nil {
		return err
	}
	done()
	if !t.o.noBroker {
		if _, err := t.procs.Start("consumer", nil, nil, t.self, "consumer", "-nats", t.natsURLs, "-db", filepath.Join(t.dir, "consumer.db")); err != nil {
			return err
		}
	}
	return nil
}

func (t *topo) startServers() error {
	for range 3 {
		p, err := topology.FreePort()
		if err != nil {
			return err
		}
		t.serverPorts = append(t.serverPorts, p)
	}
	t.servers = make([]*topology.Proc, len(t.serverPorts))
	for i := range t.serverPorts {
		if err := t.startServer(i); err != nil {
			return err
		}
	}
	hp, err := topology.FreePort()
	if err != nil {
		return err
	}
	if _, err := topology.StartHAProxy(t.procs, t.dir, hp, t.serverPorts); err != nil {
		return err
	}
	t.balancer, err = t.links.Add("balancer", fmt.Sprintf("127.0.0.1:%d", hp))
	return err
}

// startServer starts (or restarts) server i on its port.
func (t *topo) startServer(i int) error {
	args := []string{t.self, "server", "-addr", fmt.Sprintf("127.0.0.1:%d", t.serverPorts[i]), "-dsn", t.pg.DSN(t.dbPorts, "shop")}
	if t.natsURLs != "" {
		args = append(args, "-nats", t.natsURLs)
	}
	if t.o.bypassLedger {
		args = append(args, "-bypass-ledger")
	}
	if t.o.skipEvent > 0 {
		args = append(args, "-skip-event", fmt.Sprint(t.o.skipEvent))
	}
	p, _, err := t.procs.StartReady(fmt.Sprintf("server%d", i+1), 60*time.Second, nil, args...)
	if err != nil {
		return err
	}
	t.servers[i] = p
	return nil
}

// startNATS starts three nodes routed to one another and creates the
// stream with three replicas.
func (t *topo) startNATS(ctx context.Context) error {
	var urls, routes []string
	for i := range 3 {
		p, err := topology.FreePort()
		if err != nil {
			return err
		}
		cp, err := topology.FreePort()
		if err != nil {
			return err
		}
		t.natsNodes = append(t.natsNodes, natsNode{name: fmt.Sprintf("nats%d", i+1), port: p, clusterPort: cp})
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", p))
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", cp))
	}
	t.natsURLs = strings.Join(urls, ",")
	var wg sync.WaitGroup
	errs := make([]error, len(t.natsNodes))
	for i := range t.natsNodes {
		wg.Go(func() { errs[i] = t.startNATSNode(i, strings.Join(routes, ",")) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return t.createStream(ctx)
}

func (t *topo) startNATSNode(i int, routes string) error {
	n := &t.natsNodes[i]
	p, _, err := t.procs.StartReady(n.name, 60*time.Second, nil, t.self, "natsd", "-name", n.name,
		"-port", fmt.Sprint(n.port), "-cluster-port", fmt.Sprint(n.clusterPort), "-routes", routes,
		"-store", filepath.Join(t.dir, n.name))
	n.proc = p
	return err
}

// createStream creates the stream once the cluster has a JetStream
// leader, retrying while it elects one.
func (t *topo) createStream(ctx context.Context) error {
	nc, err := nats.Connect(t.natsURLs)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	cfg := idemnats.StreamConfig(streamName, streamPrefix, 2*time.Minute)
	cfg.Replicas = 3
	deadline := time.Now().Add(60 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := js.CreateStream(cctx, cfg)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("create stream: %w", err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// startClient starts (or restarts) client slot c.
func (t *topo) startClient(c *clientSlot, seed uint64) error {
	p, err := t.procs.Start(fmt.Sprintf("%s.%d", c.name, c.restarts), nil, nil, t.self, "client",
		"-name", c.name, "-url", fmt.Sprintf("http://127.0.0.1:%d", t.balancer),
		"-journal", filepath.Join(t.dir, c.name+".journal.db"), "-history", filepath.Join(t.dir, c.name+".history.jsonl"),
		"-seed", fmt.Sprint(seed), "-rate", fmt.Sprint(t.o.rate), "-until", fmt.Sprint(t.until.UnixMilli()),
		"-call-timeout", t.o.callTimeout.String())
	if err != nil {
		return err
	}
	t.mu.Lock()
	c.proc = p
	t.mu.Unlock()
	return nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// natsdMain runs one node of the JetStream cluster: an embedded
// nats-server in a process of its own, so that the nemesis can kill it.
func natsdMain(args []string) error {
	fs := flag.NewFlagSet("natsd", flag.ExitOnError)
	name := fs.String("name", "n1", "the node's server name")
	port := fs.Int("port", 0, "the client port")
	clusterPort := fs.Int("cluster-port", 0, "the cluster (route) port")
	routes := fs.String("routes", "", "comma-separated route URLs of the other nodes")
	store := fs.String("store", "", "the JetStream store directory")
	fs.Parse(args)
	opts := &natsserver.Options{
		ServerName: *name, Host: "127.0.0.1", Port: *port,
		JetStream: true, StoreDir: *store,
		Cluster: natsserver.ClusterOpts{Name: "nemesis", Host: "127.0.0.1", Port: *clusterPort},
		NoSigs:  true,
	}
	for _, r := range strings.Split(*routes, ",") {
		if r == "" {
			continue
		}
		u, err := url.Parse(r)
		if err != nil {
			return err
		}
		opts.Routes = append(opts.Routes, u)
	}
	s, err := natsserver.NewServer(opts)
	if err != nil {
		return err
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		return errors.New("natsd: not ready after 30s")
	}
	fmt.Printf("listening on %s\n", s.ClientURL())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	s.Shutdown()
	return nil
}

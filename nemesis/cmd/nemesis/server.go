package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
	idemnats "github.com/idemgen/idemgen/nats"
	"github.com/idemgen/idemgen/nemesis/api"
	"github.com/idemgen/idemgen/nemesis/shop"
	idemsrv "github.com/idemgen/idemgen/server"
)

// serverOptions are the flags of "nemesis server", one process of the
// generated server behind the balancer.
type serverOptions struct {
	addr, dsn, natsURLs string
	// sqlitePath, when set, puts the ledger, the outbox and the business
	// tables in one SQLite file instead of PostgreSQL (the load curve's
	// one-process store).
	sqlitePath   string
	lease        time.Duration
	bypassLedger bool
	skipEvent    int
	work         time.Duration
}

// Stream, subject prefix and outbox source of the events.
const (
	streamName   = "SHOP"
	streamPrefix = "shop"
	outboxSource = "shop"
)

func serverMain(args []string) error {
	var o serverOptions
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "listen address")
	fs.StringVar(&o.dsn, "dsn", "", "PostgreSQL DSN of the ledger, the outbox and the business tables")
	fs.StringVar(&o.sqlitePath, "sqlite", "", "SQLite file of the ledger, the outbox and the business tables, instead of -dsn (one process only)")
	fs.StringVar(&o.natsURLs, "nats", "", "NATS URLs the outbox relay publishes to (empty: no relay)")
	fs.DurationVar(&o.lease, "lease", 3*time.Second, "the ledger's execution lease")
	fs.BoolVar(&o.bypassLedger, "bypass-ledger", false, "run keyed operations without the ledger (to show the checker finds duplicates)")
	fs.IntVar(&o.skipEvent, "skip-event", 0, "the relay marks every Nth event delivered without publishing it (to show the checker finds lost events)")
	fs.DurationVar(&o.work, "work", 20*time.Millisecond, "time each write spends inside its transaction (a card network's call, say)")
	fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := openStore(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	h, err := newServerHandler(ctx, o, store)
	if err != nil {
		return err
	}
	sw := &ledger.Sweeper{Store: store}
	go sw.Run(ctx, time.Second, func(ledger.SweepReport, error) {})
	return listenAndServe(ctx, o.addr, h)
}

// openStore opens the SQLite file when one is named, else PostgreSQL.
func openStore(ctx context.Context, o serverOptions) (*sqlstore.Store, error) {
	if o.sqlitePath != "" {
		return sqlitestore.Open(ctx, o.sqlitePath)
	}
	return openStoreRetrying(ctx, o.dsn)
}

// openStoreRetrying opens the store, waiting out a failover in progress.
func openStoreRetrying(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		store, err := pgstore.Open(ctx, dsn, 20)
		if err == nil || time.Now().After(deadline) {
			return store, err
		}
		log.Printf("open store: %v", err)
		time.Sleep(300 * time.Millisecond)
	}
}

func newServerHandler(ctx context.Context, o serverOptions, store *sqlstore.Store) (http.Handler, error) {
	ob := outbox.New(store.DB(), store.Dialect(), nil)
	s, err := shop.New(ctx, store, ob, shop.Options{Bypass: o.bypassLedger, Work: o.work})
	if err != nil {
		return nil, err
	}
	opts := []idemsrv.Option{idemsrv.WithSecurity(shop.Tokens{}),
		idemsrv.WithOnError(func(r *http.Request, err error) { log.Printf("%s %s: %v", r.Method, r.URL.Path, err) })}
	if o.bypassLedger {
		opts = append(opts, idemsrv.WithoutLedger())
	} else {
		l, err := ledger.New(ledger.Config{Store: store, Lease: o.lease,
			OnError: func(r *http.Request, err error) { log.Printf("%s %s: ledger: %v", r.Method, r.URL.Path, err) }})
		if err != nil {
			return nil, err
		}
		opts = append(opts, idemsrv.WithLedger(l))
	}
	srv, err := api.NewServer(s, opts...)
	if err != nil {
		return nil, err
	}
	if o.natsURLs != "" {
		if err := startRelay(ctx, ob, o); err != nil {
			return nil, err
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.Handle("/", srv)
	return mux, nil
}

// startRelay publishes the outbox to the JetStream cluster; the NATS
// client reconnects to the nodes that are up by itself.
func startRelay(ctx context.Context, ob *outbox.Outbox, o serverOptions) error {
	nc, err := nats.Connect(o.natsURLs, nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond), nats.RetryOnFailedConnect(true))
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	pub := &idemnats.Publisher{JS: js, Prefix: streamPrefix, Stream: streamName, Source: outboxSource, Timeout: 2 * time.Second}
	publish := pub.Publish
	if o.skipEvent > 0 {
		publish = skipping(o.skipEvent, pub.Publish)
	}
	relay := &outbox.Relay{Outbox: ob, Publish: publish}
	go relay.Run(ctx, 100*time.Millisecond, func(err error) { log.Printf("relay: %v", err) })
	return nil
}

// skipping is a broken relay: every nth event is reported published
// without being sent, so it is marked delivered and never reaches the
// consumer.
func skipping(n int, publish func(context.Context, outbox.Event) error) func(context.Context, outbox.Event) error {
	count := 0
	return func(ctx context.Context, e outbox.Event) error {
		count++
		if count%n == 0 {
			return nil
		}
		return publish(ctx, e)
	}
}

func listenAndServe(ctx context.Context, addr string, h http.Handler) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s\n", l.Addr())
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

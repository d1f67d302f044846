// Command payments-server serves the payments example API: the generated
// server (client.NewServer) calling the business handlers of package server,
// with the ledger (idemsrv.WithLedger) on the store the flags select.
//
//	payments-server [-addr 127.0.0.1:8080] [-db payments.db | -pg DSN]
//	payments-server -sweep [-report-only] [-db ... | -pg ...]
//
// SQLite is the default store; -pg (or $PAYMENTS_PG_DSN) selects PostgreSQL.
// -sweep runs the recovery sweeper once, prints its report as JSON and exits.
// The first line on stdout is "listening on http://ADDR", so that -addr
// 127.0.0.1:0 can be used by tests.
//
// Test hooks (never set them in production), read from the environment:
// PAYMENTS_TEST_HOOKS=1 enables the /_test/ endpoints; PAYMENTS_TEST_DROP_AFTER_COMMIT=N
// drops the Nth createOrder connection after commit; PAYMENTS_TEST_PAUSE_AFTER_RESERVE=D
// pauses createOrder for D after it reserved its key, before it commits.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/idemgen/idemgen/examples/payments/client"
	"github.com/idemgen/idemgen/examples/payments/server"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/pgstore"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
	idemsrv "github.com/idemgen/idemgen/server"
)

type options struct {
	addr, db, pg, dbSync   string
	lease, ttl, wait       time.Duration
	relayEvery, sweepEvery time.Duration
	maxInFlight            int
	sweep, reportOnly      bool
}

func main() {
	var o options
	flag.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen address")
	flag.StringVar(&o.db, "db", "payments.db", "SQLite database file")
	flag.StringVar(&o.dbSync, "sqlite-sync", "FULL", "SQLite synchronous mode: FULL (survives power loss) or NORMAL (faster; survives process crashes)")
	flag.StringVar(&o.pg, "pg", os.Getenv("PAYMENTS_PG_DSN"), "PostgreSQL DSN (default $PAYMENTS_PG_DSN); overrides -db")
	flag.DurationVar(&o.lease, "lease", 30*time.Second, "execution lease: a crashed request's key is reclaimable after it")
	flag.DurationVar(&o.ttl, "ttl", 24*time.Hour, "how long keys are kept for replay")
	flag.DurationVar(&o.wait, "in-progress-wait", 0, "wait up to this long for a busy key before answering 409")
	flag.DurationVar(&o.relayEvery, "relay-every", 100*time.Millisecond, "outbox relay interval")
	flag.DurationVar(&o.sweepEvery, "sweep-every", time.Minute, "recovery sweeper interval (0: no sweeper)")
	flag.IntVar(&o.maxInFlight, "max-in-flight", 0, "answer 503 with a spread Retry-After beyond this many requests in progress (0: no limit)")
	flag.BoolVar(&o.sweep, "sweep", false, "run the sweeper once, print its report as JSON and exit")
	flag.BoolVar(&o.reportOnly, "report-only", false, "with -sweep: list stuck rows without releasing them")
	flag.Parse()
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func run(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := openStore(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	if o.sweep {
		return sweepOnce(ctx, store, o.reportOnly)
	}
	h, err := newHandler(ctx, o, store)
	if err != nil {
		return err
	}
	runSweeper(ctx, store, o.sweepEvery)
	return serve(ctx, o.addr, h)
}

// newHandler is the whole HTTP side: the generated server on the ledger,
// authenticating with server.Tokens, behind (in tests only) the fault
// hooks.
func newHandler(ctx context.Context, o options, store *sqlstore.Store) (http.Handler, error) {
	hooks, err := hooksFromEnv()
	if err != nil {
		return nil, err
	}
	l, err := ledger.New(ledger.Config{
		Store: store, Lease: o.lease, TTL: o.ttl, InProgressWait: o.wait,
		OnError: func(r *http.Request, err error) { log.Printf("%s %s: ledger: %v", r.Method, r.URL.Path, err) },
	})
	if err != nil {
		return nil, err
	}
	p, err := server.New(ctx, server.Config{Store: store, Hooks: hooks, Logf: log.Printf})
	if err != nil {
		return nil, err
	}
	srv, err := client.NewServer(p, idemsrv.WithLedger(l), idemsrv.WithSecurity(server.Tokens{}), idemsrv.WithMaxInFlight(o.maxInFlight),
		idemsrv.WithOnError(func(r *http.Request, err error) { log.Printf("%s %s: %v", r.Method, r.URL.Path, err) }))
	if err != nil {
		return nil, err
	}
	p.Run(ctx, o.relayEvery)
	return p.TestHooks(srv), nil
}

// runSweeper runs the recovery sweeper at once (to recover after a crash),
// then every interval, until ctx ends; 0 disables it.
func runSweeper(ctx context.Context, store *sqlstore.Store, every time.Duration) {
	if every <= 0 {
		return
	}
	sw := &ledger.Sweeper{Store: store}
	go sw.Run(ctx, every, func(rep ledger.SweepReport, err error) {
		if err != nil {
			log.Printf("sweeper: %v", err)
		} else if len(rep.Stuck) > 0 || rep.Purged > 0 {
			log.Printf("sweeper: %d stuck rows released, %d expired keys purged", rep.Released, rep.Purged)
		}
	})
}

func openStore(ctx context.Context, o options) (*sqlstore.Store, error) {
	if o.pg != "" {
		return pgstore.Open(ctx, o.pg, 50)
	}
	return sqlitestore.Open(ctx, o.db, sqlitestore.WithSynchronous(o.dbSync))
}

func serve(ctx context.Context, addr string, h http.Handler) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s\n", l.Addr())
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sweepReport is the JSON printed by -sweep.
type sweepReport struct {
	Stuck    []stuckRow `json:"stuck"`
	Released int        `json:"released"`
	Purged   int64      `json:"purged"`
}

type stuckRow struct {
	Caller       string    `json:"caller"`
	Operation    string    `json:"operation"`
	Key          string    `json:"key"`
	LeaseOwner   string    `json:"lease_owner"`
	LeaseExpires time.Time `json:"lease_expires"`
}

func sweepOnce(ctx context.Context, store *sqlstore.Store, reportOnly bool) error {
	sw := &ledger.Sweeper{Store: store, ReportOnly: reportOnly}
	rep, err := sw.Sweep(ctx)
	if err != nil {
		return err
	}
	out := sweepReport{Stuck: []stuckRow{}, Released: rep.Released, Purged: rep.Purged}
	for _, r := range rep.Stuck {
		out.Stuck = append(out.Stuck, stuckRow{r.Caller, r.Operation, r.Key, r.LeaseOwner, r.LeaseExpires.UTC()})
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

func hooksFromEnv() (server.Hooks, error) {
	var h server.Hooks
	h.Enabled = os.Getenv("PAYMENTS_TEST_HOOKS") == "1"
	if v := os.Getenv("PAYMENTS_TEST_DROP_AFTER_COMMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return h, fmt.Errorf("PAYMENTS_TEST_DROP_AFTER_COMMIT: %w", err)
		}
		h.DropAfterCommit = n
	}
	if v := os.Getenv("PAYMENTS_TEST_PAUSE_AFTER_RESERVE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return h, fmt.Errorf("PAYMENTS_TEST_PAUSE_AFTER_RESERVE: %w", err)
		}
		h.PauseAfterReserve = d
	}
	return h, nil
}

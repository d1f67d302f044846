// Package server is the payments example's HTTP server: three operations
// behind the ledger middleware, business rows (orders, charges) and outbox
// events written in the ledger's transaction, an outbox relay feeding a
// deduplicating consumer, and a recovery sweeper.
package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// Config configures a Server.
type Config struct {
	// Store is a migrated ledger store (sqlitestore.Open or pgstore.Open).
	Store *sqlstore.Store
	// Lease, TTL and InProgressWait are passed to the ledger.
	Lease, TTL, InProgressWait time.Duration
	// Logf receives operational messages; default: discarded.
	Logf func(format string, args ...any)
	// Hooks inject faults for the end-to-end suite; the zero value is off.
	Hooks Hooks
}

// Server serves the payments API.
type Server struct {
	cfg   Config
	db    *sqlstore.Store
	ob    *outbox.Outbox
	mux   *http.ServeMux
	hooks *hookState
}

// New creates the business tables and the routes.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	s := &Server{cfg: cfg, db: cfg.Store, mux: http.NewServeMux(), hooks: newHookState(cfg.Hooks)}
	s.ob = outbox.New(s.db.DB(), s.db.Dialect(), nil)
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	l, err := ledger.New(ledger.Config{
		Store: s.db, Caller: callerOf,
		Lease: cfg.Lease, TTL: cfg.TTL, InProgressWait: cfg.InProgressWait,
		BusyRetryAfter: time.Second,
		OnError:        func(r *http.Request, err error) { cfg.Logf("%s %s: %v", r.Method, r.URL.Path, err) },
	})
	if err != nil {
		return nil, err
	}
	s.mux.Handle("POST /orders", s.hooks.dropAfterCommit(l.Handle("createOrder", http.HandlerFunc(s.createOrder))))
	s.mux.Handle("POST /orders/{orderId}/payments", l.Handle("createPayment", http.HandlerFunc(s.createPayment)))
	s.mux.HandleFunc("GET /orders/{orderId}", s.getOrder)
	if cfg.Hooks.Enabled {
		s.mux.HandleFunc("POST /_test/unavailable", s.hooks.setUnavailable)
		s.mux.HandleFunc("GET /_test/stats", s.hooks.stats)
	}
	return s, nil
}

// ServeHTTP serves one request; with hooks on, the unavailability switch
// answers before anything else runs.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Hooks.Enabled && !strings.HasPrefix(r.URL.Path, "/_test/") && s.hooks.unavailable(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) migrate(ctx context.Context) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, caller TEXT NOT NULL, item TEXT NOT NULL,
amount_cents BIGINT NOT NULL, currency TEXT NOT NULL, charge_id TEXT NOT NULL, created_at BIGINT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS charges (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, caller TEXT NOT NULL,
amount_cents BIGINT NOT NULL, created_at BIGINT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS notifications (event_id TEXT PRIMARY KEY, topic TEXT NOT NULL, subject TEXT NOT NULL)`,
	} {
		if _, err := s.db.DB().ExecContext(ctx, q); err != nil {
			return fmt.Errorf("payments: migrate: %w", err)
		}
	}
	return nil
}

// callerOf takes the caller from a bearer token. A real deployment verifies
// the token and maps it to a tenant; the example trusts it as the tenant id.
func callerOf(r *http.Request) (string, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(tok) == "" {
		return "", errors.New("a bearer token is required")
	}
	return strings.TrimSpace(tok), nil
}

// Run runs the outbox relay and the sweeper until ctx ends. The sweeper
// runs at once (to recover after a crash), then every sweepEvery; 0
// disables it.
func (s *Server) Run(ctx context.Context, relayEvery, sweepEvery time.Duration) {
	relay := &outbox.Relay{Outbox: s.ob, Publish: s.notify}
	go relay.Run(ctx, relayEvery, func(err error) { s.cfg.Logf("outbox relay: %v", err) })
	if sweepEvery <= 0 {
		return
	}
	sw := &ledger.Sweeper{Store: s.db}
	go sw.Run(ctx, sweepEvery, func(rep ledger.SweepReport, err error) {
		if err != nil {
			s.cfg.Logf("sweeper: %v", err)
		} else if len(rep.Stuck) > 0 || rep.Purged > 0 {
			s.cfg.Logf("sweeper: %d stuck rows released, %d expired keys purged", rep.Released, rep.Purged)
		}
	})
}

// Package ledgertest is the behavioural test suite every ledger store must
// pass. The store packages run it against SQLite and PostgreSQL with
// ledgertest.Run, so both back ends are held to the same state machine.
package ledgertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// Opener returns a fresh, migrated, empty store for one test.
type Opener func(t *testing.T) *sqlstore.Store

// Clock is a settable clock safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts a clock at a fixed instant.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixture is one test's world: a store, a business table, a ledger in front
// of a handler that creates orders and writes an outbox event per order.
type fixture struct {
	t      *testing.T
	store  *sqlstore.Store
	ob     *outbox.Outbox
	clock  *Clock
	owners atomic.Int64
	calls  atomic.Int64
	// fail, when set, makes the handler answer with that status after it
	// wrote its rows (or panic when it is -1).
	fail atomic.Int64
	l    *ledger.Ledger
	h    http.Handler
}

const lease, ttl = 10 * time.Second, time.Hour

func newFixture(t *testing.T, open Opener, tweak func(*ledger.Config)) *fixture {
	t.Helper()
	f := &fixture{t: t, store: open(t), clock: NewClock()}
	f.ob = outbox.New(f.store.DB(), f.store.Dialect(), f.clock.Now)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE orders (id TEXT PRIMARY KEY, caller TEXT NOT NULL, item TEXT NOT NULL, qty INTEGER NOT NULL)`,
		`CREATE TABLE effects (event_id TEXT NOT NULL, order_id TEXT NOT NULL)`,
	} {
		if _, err := f.store.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cfg := ledger.Config{
		Store:  f.store,
		Caller: func(r *http.Request) (string, error) { return callerOf(r) },
		Lease:  lease, TTL: ttl,
		Now:   f.clock.Now,
		Owner: func() string { return fmt.Sprintf("owner-%d", f.owners.Add(1)) },
		Sleep: func(context.Context, time.Duration) error { return fmt.Errorf("no wait configured") },
	}
	if tweak != nil {
		tweak(&cfg)
	}
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.l = l
	f.h = l.Handle("createOrder", http.HandlerFunc(f.createOrder))
	return f
}

func callerOf(r *http.Request) (string, error) {
	c := r.Header.Get("X-Caller")
	if c == "" {
		return "", fmt.Errorf("missing X-Caller")
	}
	return c, nil
}

type orderIn struct {
	Item string `json:"item"`
	Qty  int    `json:"qty"`
}

// createOrder is the business handler: it writes an order and an outbox
// event through the ledger's transaction.
func (f *fixture) createOrder(w http.ResponseWriter, r *http.Request) {
	id, in, ok := f.insertOrder(w, r)
	if !ok {
		return
	}
	switch st := f.fail.Load(); {
	case st == -1:
		panic("handler failure after writing rows")
	case st > 0:
		http.Error(w, "injected failure", int(st))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/orders/"+id)
	w.Header().Set("X-Not-Stored", "1")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%q,"item":%q,"qty":%d}`, id, in.Item, in.Qty)
}

// insertOrder decodes the order and writes it with its outbox event; on
// failure it has answered and returns false.
func (f *fixture) insertOrder(w http.ResponseWriter, r *http.Request) (string, orderIn, bool) {
	f.calls.Add(1)
	ctx := r.Context()
	tx := ledger.Tx(ctx)
	var in orderIn
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return "", in, false
	}
	id := fmt.Sprintf("ord-%d", f.calls.Load())
	caller, _ := callerOf(r)
	d := f.store.Dialect()
	if _, err := tx.ExecContext(ctx, d.Rebind(`INSERT INTO orders (id, caller, item, qty) VALUES (?, ?, ?, ?)`), id, caller, in.Item, in.Qty); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return "", in, false
	}
	if _, err := f.ob.Add(ctx, tx, outbox.Event{ID: "evt-" + id, Topic: "order.created", Payload: []byte(id)}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return "", in, false
	}
	return id, in, true
}

// handle replaces the fixture's handler with fn behind the ledger.
func (f *fixture) handle(fn http.HandlerFunc) { f.h = f.l.Handle("createOrder", fn) }

// do sends one request to /orders through the middleware.
func (f *fixture) do(caller, key, body string) *httptest.ResponseRecorder {
	return f.doAt("/orders", caller, key, body)
}

// doAt sends one request to target through the middleware.
func (f *fixture) doAt(target, caller, key, body string) *httptest.ResponseRecorder {
	return f.doWith(target, caller, key, body, nil)
}

// doWith sends one request to target with the extra headers hdr.
func (f *fixture) doWith(target, caller, key, body string, hdr http.Header) *httptest.ResponseRecorder {
	return f.sendTo(f.h, target, caller, key, body, hdr)
}

// sendTo sends one request to target through h.
func (f *fixture) sendTo(h http.Handler, target, caller, key, body string, hdr http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		r.Header[k] = v
	}
	if caller != "" {
		r.Header.Set("X-Caller", caller)
	}
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func (f *fixture) count(table string) int {
	f.t.Helper()
	var n int
	if err := f.store.DB().QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

func (f *fixture) row(caller, key string) (ledger.Record, bool) {
	f.t.Helper()
	rec, ok, err := f.store.Get(context.Background(), ledger.ID{Caller: caller, Operation: "createOrder", Key: key})
	if err != nil {
		f.t.Fatal(err)
	}
	return rec, ok
}

// wantCounts asserts the business state: orders and outbox events.
func (f *fixture) wantCounts(orders, events int) {
	f.t.Helper()
	if got := f.count("orders"); got != orders {
		f.t.Errorf("orders rows = %d, want %d", got, orders)
	}
	if got := f.count("idem_outbox"); got != events {
		f.t.Errorf("outbox rows = %d, want %d", got, events)
	}
}

// wantKeyEchoed: every answer to a keyed request names its key, as Stripe's
// do, so a caller's logs tie each response to its intent.
func wantKeyEchoed(t *testing.T, w *httptest.ResponseRecorder, key string) {
	t.Helper()
	if got := w.Header().Values("Idempotency-Key"); len(got) != 1 || got[0] != key {
		t.Errorf("the answer's Idempotency-Key = %q, want [%q]", got, key)
	}
}

func wantStatus(t *testing.T, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body.String())
	}
}

// reserveAs reserves key for a foreign execution (another process), at the
// clock's current time.
func (f *fixture) reserveAs(owner, caller, key, body string) ledger.Decision {
	f.t.Helper()
	dec, err := f.store.Reserve(context.Background(), ledger.Reservation{
		ID:          ledger.ID{Caller: caller, Operation: "createOrder", Key: key},
		Fingerprint: ledger.Fingerprint(http.MethodPost, "createOrder", "/orders", "application/json", []byte(body)),
		Owner:       owner, Now: f.clock.Now(), Lease: lease, TTL: ttl,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return dec
}

// completeAs completes a foreign execution with a stored response.
func (f *fixture) completeAs(owner, caller, key string, body string) error {
	tx, err := f.store.Begin(context.Background())
	if err != nil {
		return err
	}
	id := ledger.ID{Caller: caller, Operation: "createOrder", Key: key}
	resp := ledger.Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}
	if err := f.store.Complete(context.Background(), tx, id, owner, resp); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

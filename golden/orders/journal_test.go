package orders_test

// The call journal and its reconciler against the generated orders server
// with its ledger on SQLite: every test asserts business executions (the
// handler's count), not replies. Hand-written.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
	idemsrv "github.com/idemgen/idemgen/server"
)

// stallFirst lets the first request execute to the end (the ledger
// commits) and then holds its answer until the client gives up.
func stallFirst() func(http.Handler) http.Handler {
	var n atomic.Int64
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				h.ServeHTTP(httptest.NewRecorder(), r)
				<-r.Context().Done()
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// journaled is a generated server with its ledger, a SQL journal, a client
// recording in it through j, and a reconciler resending with that client.
type journaled struct {
	h   *echo
	url string
	j   *journal.SQL
	c   *orders.Client
	rec *journal.Reconciler
	got []journal.Outcome
}

func newJournaled(t *testing.T, wrap func(http.Handler) http.Handler, j func(*journal.SQL) idemrt.Journal) *journaled {
	t.Helper()
	e := &journaled{h: &echo{order: sampleOrder()}}
	e.url, _ = serveOrders(t, e.h, wrap, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	var err error
	e.j, err = sqlitestore.OpenJournal(context.Background(), filepath.Join(t.TempDir(), "journal.db"), sqlitestore.WithSynchronous("NORMAL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.j.Close() })
	var rj idemrt.Journal = e.j
	if j != nil {
		rj = j(e.j)
	}
	if e.c, err = orders.NewClient(e.url, idemrt.WithJournal(rj), orders.WithBearerAuth("secret")); err != nil {
		t.Fatal(err)
	}
	e.rec = &journal.Reconciler{Journal: e.j, Client: e.c, Grace: time.Minute,
		Now:        func() time.Time { return time.Now().Add(2 * time.Minute) },
		OnResolved: func(_ journal.Entry, o journal.Outcome) { e.got = append(e.got, o) }}
	return e
}

func (e *journaled) only(t *testing.T) journal.Entry {
	t.Helper()
	es, err := e.j.List(context.Background(), "", 10)
	if err != nil || len(es) != 1 {
		t.Fatalf("%d entries, %v", len(es), err)
	}
	return es[0]
}

// TestJournalDeadlineAfterCommit: the server commits a keyed create, its
// answer never comes and the client's deadline ends; the entry stays
// unresolved, with no credential in it. The reconciler resends it with its
// key: the ledger replays the first answer, the entry is resolved as
// executed with the original order, and the handler ran once.
func TestJournalDeadlineAfterCommit(t *testing.T) {
	e := newJournaled(t, stallFirst(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := e.c.CreateOrder(ctx, orderBody, orders.CreateOrderParams{IdempotencyKey: "k-deadline"})
	if !errors.Is(err, idemrt.ErrOutcomeUnknown) {
		t.Fatalf("call: %v", err)
	}
	en := e.only(t)
	if en.State != journal.StateUnresolved || en.Key != "k-deadline" || en.Header.Get("Authorization") != "" {
		t.Fatalf("entry %+v", en)
	}
	if p := e.rec.Pass(context.Background()); p.Executed != 1 || p.Err != nil {
		t.Fatalf("pass %+v", p)
	}
	if len(e.got) != 1 || e.got[0].Status != 201 || !strings.Contains(string(e.got[0].Body), `"id":"0b1c"`) || e.h.executions.Load() != 1 {
		t.Fatalf("outcomes %+v, %d executions", e.got, e.h.executions.Load())
	}
	if en := e.only(t); en.State != journal.StateResolved || en.Resolution != "executed" {
		t.Fatalf("entry after the pass %+v", en)
	}
}

// killedAfterRecord is a process that dies once the entry is durable:
// nothing is sent.
type killedAfterRecord struct{ *journal.SQL }

func (k killedAfterRecord) Record(ctx context.Context, en *idemrt.JournalEntry) error {
	if err := k.SQL.Record(ctx, en); err != nil {
		return err
	}
	return errors.New("killed")
}

// killedAfterSend is a process that dies after its send, before it could
// store anything about it.
type killedAfterSend struct{ *journal.SQL }

func (killedAfterSend) Attempted(context.Context, string, idemrt.Attempt) error {
	return errors.New("killed")
}
func (killedAfterSend) Resolve(context.Context, string, idemrt.Attempt) error {
	return errors.New("killed")
}

// TestJournalKilledBeforeSend: the entry was recorded and the process died
// before sending; after the restart the reconciler's send is the only one:
// one execution.
func TestJournalKilledBeforeSend(t *testing.T) {
	e := newJournaled(t, nil, func(j *journal.SQL) idemrt.Journal { return killedAfterRecord{j} })
	if _, err := e.c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{}); !errors.Is(err, idemrt.ErrJournal) {
		t.Fatalf("call: %v", err)
	}
	if n := e.h.executions.Load(); n != 0 {
		t.Fatalf("%d executions before the restart", n)
	}
	if p := e.rec.Pass(context.Background()); p.Executed != 1 || e.h.executions.Load() != 1 {
		t.Fatalf("pass %+v, %d executions", p, e.h.executions.Load())
	}
}

// TestJournalKilledAfterSend: the process sent the call (it executed) and
// died before storing the outcome; the reconciler's resend gets the
// ledger's stored answer: still one execution.
func TestJournalKilledAfterSend(t *testing.T) {
	e := newJournaled(t, nil, func(j *journal.SQL) idemrt.Journal { return killedAfterSend{j} })
	if _, err := e.c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{}); err != nil {
		t.Fatal(err)
	}
	if en := e.only(t); en.State != journal.StateUnresolved || e.h.executions.Load() != 1 {
		t.Fatalf("entry %+v, %d executions", en, e.h.executions.Load())
	}
	if p := e.rec.Pass(context.Background()); p.Executed != 1 || e.h.executions.Load() != 1 {
		t.Fatalf("pass %+v, %d executions", p, e.h.executions.Load())
	}
}

// TestJournalKeyPastTTL: an unresolved keyed entry older than the key's TTL
// needs a person and is never resent.
func TestJournalKeyPastTTL(t *testing.T) {
	e := newJournaled(t, nil, func(j *journal.SQL) idemrt.Journal { return killedAfterRecord{j} })
	e.rec.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	if _, err := e.c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{}); !errors.Is(err, idemrt.ErrJournal) {
		t.Fatalf("call: %v", err)
	}
	if p := e.rec.Pass(context.Background()); p.NeedsPerson != 1 || e.h.executions.Load() != 0 {
		t.Fatalf("pass %+v, %d executions", p, e.h.executions.Load())
	}
	if en := e.only(t); en.State != journal.StateNeedsPerson || !strings.Contains(en.Note, "TTL") {
		t.Fatalf("entry %+v", en)
	}
}

// TestJournalEnqueuedInTransaction: a create recorded in the application's
// transaction (the outbox for HTTP calls) is never sent when the
// transaction rolls back, and sent once, with the client's credentials,
// when it commits.
func TestJournalEnqueuedInTransaction(t *testing.T) {
	e := newJournaled(t, nil, nil)
	server, err := wire.ParseServerURL(e.url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		b := wire.NewBuilder(server, "POST", "/orders")
		b.JSONBody("application/json", orderBody)
		req, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		op := idemrt.Operation{ID: "createOrder", Safety: idemrt.Keyed, KeyHeader: "Idempotency-Key"}
		tx, err := e.j.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.j.RecordTx(ctx, tx, idemrt.NewJournalEntry(&op, req, time.Now())); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		e.rec.Pass(ctx)
	}
	e.rec.Pass(ctx)
	if len(e.got) != 1 || e.got[0].Kind != journal.Executed || e.h.executions.Load() != 1 {
		t.Fatalf("outcomes %+v, %d executions", e.got, e.h.executions.Load())
	}
}

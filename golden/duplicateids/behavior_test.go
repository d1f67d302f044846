package duplicateids_test

// One operationId on two bindings (as Temporal's document declares 105 of
// them): a journal entry names its operation by its identity, so the
// reconciler resends it as that binding's call and no other. The generated
// server with a SQLite ledger counts each binding's executions and the
// requests each binding received. Hand-written.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/duplicateids"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// widgets is the business: it counts the widgets each binding created.
type widgets struct {
	duplicateids.Handler // the methods a test does not call panic
	mu                   sync.Mutex
	created              map[string]int
}

func (w *widgets) create(binding string, body duplicateids.NewWidget) (*duplicateids.Widget, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.created[binding]++
	return &duplicateids.Widget{ID: binding + "-1", Name: body.Name}, nil
}

func (w *widgets) CreateWidget(_ context.Context, body duplicateids.NewWidget, _ duplicateids.CreateWidgetParams) (*duplicateids.Widget, error) {
	return w.create("api", body)
}

func (w *widgets) CreateWidget2(_ context.Context, body duplicateids.NewWidget, _ duplicateids.CreateWidget2Params) (*duplicateids.Widget, error) {
	return w.create("cluster", body)
}

func (w *widgets) executions() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return map[string]int{"api": w.created["api"], "cluster": w.created["cluster"]}
}

// diesAfterSend is a process that sent its call and died before it could
// store the outcome: the entry stays unresolved.
type diesAfterSend struct{ *journal.SQL }

func (diesAfterSend) Attempted(context.Context, string, idemrt.Attempt) error {
	return errors.New("killed")
}
func (diesAfterSend) Resolve(context.Context, string, idemrt.Attempt) error {
	return errors.New("killed")
}

// serve runs the generated server with a SQLite ledger on 127.0.0.1 and
// counts the requests each binding receives.
func serve(t *testing.T, h duplicateids.Handler) (string, func() map[string]int) {
	t.Helper()
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := duplicateids.NewServer(h, idemsrv.WithLedger(l))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	received := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return map[string]int{"api": received["POST /api/v1/widgets"], "cluster": received["POST /cluster/widgets"]}
	}
}

// TestResendPicksItsOwnBinding: CreateWidget and CreateWidget2 share the
// operationId CreateWidget. A keyed call of one binding is sent, executed,
// and its process dies before the outcome is stored; the entry names the
// binding ("POST /cluster/widgets"), as every attempt record does. The
// reconciler resends it to that binding with its key: the ledger replays
// the first answer, the binding executed once, and the other binding
// received nothing. Before, the package did not compile (`duplicate case
// "CreateWidget"`), and an entry named "CreateWidget" could not say which
// binding it was.
func TestResendPicksItsOwnBinding(t *testing.T) {
	for _, tc := range []struct {
		binding, other, identity string
		call                     func(context.Context, *duplicateids.Client) (*duplicateids.Widget, error)
	}{
		{"api", "cluster", "POST /api/v1/widgets", func(ctx context.Context, c *duplicateids.Client) (*duplicateids.Widget, error) {
			return c.CreateWidget(ctx, duplicateids.NewWidget{Name: "gear"}, duplicateids.CreateWidgetParams{IdempotencyKey: "k-api"})
		}},
		{"cluster", "api", "POST /cluster/widgets", func(ctx context.Context, c *duplicateids.Client) (*duplicateids.Widget, error) {
			return c.CreateWidget2(ctx, duplicateids.NewWidget{Name: "gear"}, duplicateids.CreateWidget2Params{IdempotencyKey: "k-cluster"})
		}},
	} {
		t.Run(tc.binding, func(t *testing.T) {
			h := &widgets{created: map[string]int{}}
			url, received := serve(t, h)
			j, err := sqlitestore.OpenJournal(context.Background(), filepath.Join(t.TempDir(), "journal.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Close() })
			var mu sync.Mutex
			var recorded []string
			seen := idemrt.ObserverFunc(func(_ context.Context, a idemrt.Attempt) {
				mu.Lock()
				recorded = append(recorded, a.Operation)
				mu.Unlock()
			})
			c, err := duplicateids.NewClient(url, idemrt.WithJournal(diesAfterSend{j}), idemrt.WithObserver(seen))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tc.call(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			es, err := j.List(context.Background(), "", 10)
			if err != nil || len(es) != 1 || es[0].Operation != tc.identity || es[0].State != journal.StateUnresolved {
				t.Fatalf("entries %+v (%v), want one unresolved entry of %q", es, err, tc.identity)
			}
			mu.Lock()
			if len(recorded) != 1 || recorded[0] != tc.identity {
				t.Errorf("attempt records name %q, want [%s]", recorded, tc.identity)
			}
			mu.Unlock()
			var got []journal.Outcome
			rec := &journal.Reconciler{Journal: j, Client: c, Grace: time.Minute,
				Now:        func() time.Time { return time.Now().Add(2 * time.Minute) },
				OnResolved: func(_ journal.Entry, o journal.Outcome) { got = append(got, o) }}
			if p := rec.Pass(context.Background()); p.Err != nil || p.Executed != 1 {
				t.Fatalf("pass %+v", p)
			}
			if len(got) != 1 || got[0].Status != 201 || !strings.Contains(string(got[0].Body), `"id":"`+tc.binding+`-1"`) {
				t.Fatalf("outcomes %+v, want the first answer replayed", got)
			}
			ex, rcv := h.executions(), received()
			if ex[tc.binding] != 1 || ex[tc.other] != 0 || rcv[tc.binding] != 2 || rcv[tc.other] != 0 {
				t.Fatalf("executions %v, requests %v: want %s executed once of two requests, %s untouched", ex, rcv, tc.binding, tc.other)
			}
		})
	}
}

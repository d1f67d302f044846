package ledger_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

func openDeliveries(t *testing.T) (*ledger.Ledger, *sqlstore.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.DB().ExecContext(ctx, `CREATE TABLE applied (id TEXT)`); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(ledger.Config{Store: st, Caller: func(*http.Request) (string, error) { return "x", nil }})
	if err != nil {
		t.Fatal(err)
	}
	return l, st
}

func countApplied(t *testing.T, st *sqlstore.Store) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM applied`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// insertApplied is a delivery handler that writes one business row in the
// ledger's transaction, then returns fail.
func insertApplied(fail error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if _, err := ledger.Tx(ctx).ExecContext(ctx, `INSERT INTO applied VALUES ('x')`); err != nil {
			return err
		}
		return fail
	}
}

func TestDeliverAppliesOnce(t *testing.T) {
	l, st := openDeliveries(t)
	ctx := context.Background()
	id := ledger.ID{Caller: "webhook", Operation: "standard", Key: "msg_1"}
	want := []ledger.Delivered{ledger.Applied, ledger.Duplicate, ledger.Duplicate}
	for i, w := range want {
		got, err := l.Deliver(ctx, id, insertApplied(nil))
		if err != nil || got != w {
			t.Fatalf("delivery %d: %v, %v; want %v", i, got, err, w)
		}
	}
	if n := countApplied(t, st); n != 1 {
		t.Fatalf("applied %d rows, want 1", n)
	}
}

func TestDeliverFailureRollsBackAndFreesTheID(t *testing.T) {
	l, st := openDeliveries(t)
	ctx := context.Background()
	id := ledger.ID{Caller: "webhook", Operation: "standard", Key: "msg_2"}
	boom := errors.New("boom")
	if _, err := l.Deliver(ctx, id, insertApplied(boom)); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	_, err := l.Deliver(ctx, id, func(ctx context.Context) error {
		insertApplied(nil)(ctx)
		panic("handler bug")
	})
	// The one panic type of the server side, as a keyed handler's.
	var pe *ledger.PanicError
	if !errors.As(err, &pe) || pe.Value != "handler bug" || len(pe.Stack) == 0 {
		t.Fatalf("a panicking handler: %v, want a *ledger.PanicError with its value and stack", err)
	}
	if n := countApplied(t, st); n != 0 {
		t.Fatalf("a failed delivery left %d rows", n)
	}
	if got, err := l.Deliver(ctx, id, insertApplied(nil)); err != nil || got != ledger.Applied {
		t.Fatalf("redelivery: %v, %v", got, err)
	}
	if n := countApplied(t, st); n != 1 {
		t.Fatalf("applied %d rows, want 1", n)
	}
}

func TestDeliverInFlight(t *testing.T) {
	l, st := openDeliveries(t)
	ctx := context.Background()
	id := ledger.ID{Caller: "webhook", Operation: "standard", Key: "msg_3"}
	if _, err := st.Reserve(ctx, ledger.Reservation{ID: id, Fingerprint: "delivery", Owner: "other",
		Now: time.Now(), Lease: time.Minute, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	got, err := l.Deliver(ctx, id, insertApplied(nil))
	if err != nil || got != ledger.InFlight {
		t.Fatalf("got %v, %v; want InFlight", got, err)
	}
	if n := countApplied(t, st); n != 0 {
		t.Fatalf("applied %d rows while another held the id", n)
	}
}

func TestDeliverRefusesBadIDs(t *testing.T) {
	l, _ := openDeliveries(t)
	for _, key := range []string{"", "a\x00b", "\xff", string(make([]byte, 256))} {
		_, err := l.Deliver(context.Background(), ledger.ID{Caller: "webhook", Operation: "s", Key: key}, insertApplied(nil))
		if !errors.Is(err, ledger.ErrDeliveryID) {
			t.Errorf("key %q: err = %v, want ErrDeliveryID", key, err)
		}
	}
}

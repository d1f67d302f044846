package ledger_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
)

// TestDeliverAnyOncePerIdentity: a delivery known by its id and its body's
// hash runs once; a later one sharing either identity is a Duplicate and
// leaves no record under its other identity.
func TestDeliverAnyOncePerIdentity(t *testing.T) {
	l, st := openDeliveries(t)
	ctx := context.Background()
	id := func(op, key string) ledger.ID { return ledger.ID{Caller: "webhook", Operation: op, Key: key} }
	steps := []struct {
		ids  []ledger.ID
		want ledger.Delivered
	}{
		{[]ledger.ID{id("github", "d1"), id("github-body", "h1")}, ledger.Applied},
		{[]ledger.ID{id("github", "d2"), id("github-body", "h1")}, ledger.Duplicate},
		{[]ledger.ID{id("github", "d1"), id("github-body", "h2")}, ledger.Duplicate},
		{[]ledger.ID{id("github", "d3"), id("github-body", "h3")}, ledger.Applied},
	}
	for i, s := range steps {
		if got, err := l.DeliverAny(ctx, s.ids, insertApplied(nil)); err != nil || got != s.want {
			t.Fatalf("step %d: %v, %v; want %v", i+1, got, err, s.want)
		}
	}
	if n := countApplied(t, st); n != 2 {
		t.Fatalf("applied %d rows, want 2", n)
	}
	for _, gone := range []ledger.ID{id("github", "d2"), id("github-body", "h2")} {
		if _, ok, err := st.Get(ctx, gone); ok || err != nil {
			t.Errorf("%v was recorded (%v) by a delivery refused as a duplicate", gone, err)
		}
	}
	if _, err := l.DeliverAny(ctx, nil, insertApplied(nil)); !errors.Is(err, ledger.ErrDeliveryID) {
		t.Errorf("no identity: %v", err)
	}
}

// TestDeliverAnyInFlightReleases: an identity held by another execution
// makes the delivery InFlight and frees the identities it had reserved.
func TestDeliverAnyInFlightReleases(t *testing.T) {
	l, st := openDeliveries(t)
	ctx := context.Background()
	held := ledger.ID{Caller: "webhook", Operation: "github-body", Key: "h"}
	if _, err := st.Reserve(ctx, ledger.Reservation{ID: held, Fingerprint: "delivery", Owner: "other",
		Now: time.Now(), Lease: time.Minute, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	first := ledger.ID{Caller: "webhook", Operation: "github", Key: "d"}
	if got, err := l.DeliverAny(ctx, []ledger.ID{first, held}, insertApplied(nil)); err != nil || got != ledger.InFlight {
		t.Fatalf("got %v, %v; want InFlight", got, err)
	}
	if _, ok, err := st.Get(ctx, first); ok || err != nil {
		t.Fatalf("the delivery id stayed reserved (%v)", err)
	}
	if n := countApplied(t, st); n != 0 {
		t.Fatalf("applied %d rows", n)
	}
}

// TestClaimDeliveryScope: a scope is claimed once per store, across the
// ledgers on it, until released or dropped; another store, or another
// scope, is free.
func TestClaimDeliveryScope(t *testing.T) {
	l1, st := openDeliveries(t)
	l2, err := ledger.New(ledger.Config{Store: st, Caller: func(*http.Request) (string, error) { return "x", nil }})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := openDeliveries(t)
	c, err := l1.ClaimDeliveryScope("webhook")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l2.ClaimDeliveryScope("webhook"); !errors.Is(err, ledger.ErrDeliveryScope) {
		t.Errorf("a second ledger on the store: %v, want ErrDeliveryScope", err)
	}
	for name, l := range map[string]*ledger.Ledger{"another scope": l2, "another store": other} {
		scope := "webhook"
		if l == l2 {
			scope = "webhook:billing"
		}
		if _, err := l.ClaimDeliveryScope(scope); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, bad := range []string{"", "a\x00b", string(make([]byte, 256))} {
		if _, err := l1.ClaimDeliveryScope(bad); !errors.Is(err, ledger.ErrDeliveryID) {
			t.Errorf("scope %q: %v, want ErrDeliveryID", bad, err)
		}
	}
	c.Release()
	c.Release()
	if _, err := l2.ClaimDeliveryScope("webhook"); err != nil {
		t.Errorf("after Release: %v", err)
	}
}

// TestClaimDeliveryScopeDropped: a claim nothing refers to frees its scope
// once collected.
func TestClaimDeliveryScopeDropped(t *testing.T) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := ledger.New(ledger.Config{Store: st, Caller: func(*http.Request) (string, error) { return "x", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.ClaimDeliveryScope("webhook"); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	if _, err := l.ClaimDeliveryScope("webhook"); err != nil {
		t.Fatalf("a dropped claim still holds its scope: %v", err)
	}
}

package ledgertest

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

// testForeverTTL: a "forever" TTL and lease (math.MaxInt64, past the year
// 2262 that int64 Unix nanoseconds reach) keep a key for replay: the key
// must not expire as it is written, which made every repeat execute again.
func testForeverTTL(t *testing.T, open Opener) {
	f := newFixture(t, open, func(c *ledger.Config) { c.TTL, c.Lease = math.MaxInt64, math.MaxInt64 })
	first := f.do("alice", "k1", body1)
	wantStatus(t, first, http.StatusCreated)
	f.clock.Advance(365 * 24 * time.Hour)
	again := f.do("alice", "k1", body1)
	if again.Body.String() != first.Body.String() || again.Header().Get(ledger.ReplayedHeader) != "true" {
		t.Errorf("a year later: %d %s, want the replay of %s", again.Code, again.Body.String(), first.Body.String())
	}
	f.wantCounts(1, 1)
	rec, _ := f.row("alice", "k1")
	if !rec.ExpiresAt.After(f.clock.Now().Add(50 * 365 * 24 * time.Hour)) {
		t.Errorf("the key expires at %v", rec.ExpiresAt)
	}
}

// testStoreSaturatesFarTimes: a store handed a reservation whose lease and
// expiry lie past 2262 (a Store used without ledger.New's clamp) keeps
// them at the latest instant it can represent, never wrapped to 1677.
func testStoreSaturatesFarTimes(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	id := ledger.ID{Caller: "alice", Operation: "createOrder", Key: "far"}
	r := ledger.Reservation{ID: id, Fingerprint: "fp", Owner: "o1", Now: f.clock.Now(), Lease: math.MaxInt64, TTL: math.MaxInt64}
	if dec, err := f.store.Reserve(context.Background(), r); err != nil || dec.Outcome != ledger.Reserved {
		t.Fatalf("reserve = %+v, %v", dec, err)
	}
	r.Owner = "o2"
	if dec, err := f.store.Reserve(context.Background(), r); err != nil || dec.Outcome != ledger.Busy {
		t.Fatalf("second reserve = %v, %v; want Busy: the lease of the first is live", dec.Outcome, err)
	}
	rec, ok := f.row("alice", "far")
	if !ok || !rec.ExpiresAt.After(f.clock.Now()) || !rec.LeaseExpires.After(f.clock.Now()) {
		t.Fatalf("row %+v (found %v): expiry and lease must lie ahead", rec, ok)
	}
}

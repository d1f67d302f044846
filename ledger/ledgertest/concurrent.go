package ledgertest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/ledger"
)

func testConcurrent(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	const n = 20
	var wg sync.WaitGroup
	res := make([]*httptest.ResponseRecorder, n)
	for i := range n {
		wg.Go(func() { res[i] = f.do("alice", "hot", body1) })
	}
	wg.Wait()
	f.wantCounts(1, 1)
	rec, _ := f.row("alice", "hot")
	for i, w := range res {
		switch w.Code {
		case http.StatusCreated:
			if !bytes.Equal(w.Body.Bytes(), rec.Response.Body) {
				t.Errorf("caller %d got %q, want the one order %q", i, w.Body.Bytes(), rec.Response.Body)
			}
		case http.StatusConflict:
		default:
			t.Errorf("caller %d got %d %s", i, w.Code, w.Body.Bytes())
		}
	}
}

// testConcurrentReclaim: twenty executions race to take over one dead
// lease; exactly one wins, the others see the key busy.
func testConcurrentReclaim(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.reserveAs("crashed", "alice", "k1", body1)
	f.clock.Advance(lease)
	const n = 20
	decs := make([]ledger.Decision, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			decs[i], errs[i] = f.store.Reserve(context.Background(), ledger.Reservation{
				ID:          ledger.ID{Caller: "alice", Operation: "createOrder", Key: "k1"},
				Fingerprint: ledger.Fingerprint(http.MethodPost, "createOrder", "/orders", "application/json", []byte(body1)),
				Owner:       fmt.Sprintf("retry-%d", i), Now: f.clock.Now(), Lease: lease, TTL: ttl,
			})
		})
	}
	wg.Wait()
	winners := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("reserve %d: %v", i, errs[i])
		}
		switch decs[i].Outcome {
		case ledger.Reserved:
			winners++
			if !decs[i].Reclaimed {
				t.Errorf("the winner did not report a reclaim")
			}
		case ledger.Busy:
		default:
			t.Errorf("reserve %d: outcome %v", i, decs[i].Outcome)
		}
	}
	if winners != 1 {
		t.Fatalf("%d executions took over the dead lease, want exactly 1", winners)
	}
}

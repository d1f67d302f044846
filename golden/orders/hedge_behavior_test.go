package orders_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestHedgedGetPaymentTakesTheFasterAnswer: a GetPayment hedged by a call
// option, against a server whose first answer never comes (the handler
// lets the client's fake clock run until the client gives up on it): the
// hedge leaves once the clock passes After, its answer is the result, and
// the server sees the first request abandoned by the client.
func TestHedgedGetPaymentTakesTheFasterAnswer(t *testing.T) {
	clock := testutil.NewFakeClock()
	abandoned := make(chan struct{}, 1)
	s := &server{t: t, byKey: map[string][]byte{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r)
		if !s.firstRequest() {
			writeJSON(w, http.StatusOK, orders.Payment{ID: "p1", OrderID: "o1", Amount: 500, Currency: "EUR"})
			return
		}
		for {
			select {
			case <-r.Context().Done():
				abandoned <- struct{}{}
				return
			case <-time.After(time.Millisecond):
				// A slow server, as the client's clock sees it.
				clock.Advance(10 * time.Millisecond)
			}
		}
	}))
	t.Cleanup(ts.Close)
	c, err := orders.NewClient(ts.URL+"/v1", idemrt.WithClock(clock), orders.WithBearerAuth("secret"))
	if err != nil {
		t.Fatal(err)
	}
	var log []idemrt.Attempt
	p, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"},
		idemrt.WithHedging(idemrt.HedgePolicy{After: 50 * time.Millisecond, MaxAttempts: 2}), idemrt.WithAttemptLog(&log))
	if err != nil || p.ID != "p1" {
		t.Fatalf("payment %+v, err %v", p, err)
	}
	select {
	case <-abandoned:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the slow request abandoned")
	}
	if requests, _ := s.counts(); requests != 2 {
		t.Fatalf("%d requests, want 2", requests)
	}
	if len(log) != 2 || log[0].Outcome != idemrt.OutcomeCancelled || log[1].Reason != idemrt.ReasonHedge || !log[1].Final {
		t.Fatalf("records %+v", log)
	}
}

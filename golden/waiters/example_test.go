package waiters_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/idemgen/idemgen/golden/waiters"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// ExampleClient_WaitPaymentSucceeded creates a payment and waits until it
// has succeeded. The server here is a stand-in whose payment is pending on
// the first read and succeeded on the second; the short delay keeps the
// example quick (the waiter's own is 2s).
func ExampleClient_WaitPaymentSucceeded() {
	var reads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"id": "pay_1", "amount": 100, "status": "pending"}`)
			return
		}
		status := "pending"
		if reads.Add(1) > 1 {
			status = "succeeded"
		}
		fmt.Fprintf(w, `{"id": "pay_1", "amount": 100, "status": %q}`, status)
	}))
	defer srv.Close()

	client, err := waiters.NewClient(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	created, err := client.CreatePayment(ctx, waiters.NewPayment{Amount: 100}, waiters.CreatePaymentParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(created.ID, created.Status)

	paid, err := client.WaitPaymentSucceeded(ctx, waiters.GetPaymentParams{ID: created.ID},
		idemrt.WithWaitDelay(10*time.Millisecond), idemrt.WithWaitTimeout(time.Minute))
	var we *idemrt.WaitError
	switch {
	case errors.Is(err, idemrt.ErrWaitFailed) && errors.As(err, &we):
		fmt.Println("payment failed:", we.Last.(*waiters.Payment).Status)
	case errors.Is(err, idemrt.ErrWaitTimeout):
		fmt.Println("still not settled")
	case err != nil:
		fmt.Println(err)
	default:
		fmt.Println(paid.ID, paid.Status, "after", reads.Load(), "reads")
	}
	// Output:
	// pay_1 pending
	// pay_1 succeeded after 2 reads
}

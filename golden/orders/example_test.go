package orders_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// A keyed create: the key names one business intent. A retry after a lost
// response sends the same key, so the server charges once; the error, if
// any, carries the key for reconciliation.
func ExampleClient_CreatePayment() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(orders.Payment{ID: "pay_1", OrderID: "o1", Amount: 500, Currency: "EUR",
			Status: orders.PaymentStatusAuthorized})
	}))
	defer srv.Close()

	c, err := orders.NewClient(srv.URL, orders.WithBearerAuth("token"))
	if err != nil {
		panic(err)
	}
	pay, err := c.CreatePayment(context.Background(),
		orders.PaymentRequest{OrderID: "o1", Amount: 500, Currency: "EUR"},
		orders.CreatePaymentParams{IdempotencyKey: "checkout-7f3a"})
	if err != nil {
		fmt.Println("failed; reconcile with key", idemrt.KeyOf(err))
		return
	}
	fmt.Println(pay.ID, pay.Status, pay.Status.IsKnown())
	// Output: pay_1 authorized true
}

// Optimistic concurrency: a stale If-Match gets 412, which is never retried
// and matches idemrt.ErrPreconditionFailed; the declared error model is in
// StatusError.Model.
func ExampleClient_UpdateOrder() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPreconditionFailed)
		json.NewEncoder(w).Encode(orders.Error{Code: "stale", Message: "order changed"})
	}))
	defer srv.Close()

	c, _ := orders.NewClient(srv.URL)
	_, err := c.UpdateOrder(context.Background(), orders.OrderUpdate{},
		orders.UpdateOrderParams{OrderID: "o1", IfMatch: `"v1"`})
	var se *idemrt.StatusError
	if errors.Is(err, idemrt.ErrPreconditionFailed) && errors.As(err, &se) {
		fmt.Println(se.StatusCode, se.Model.(*orders.Error).Message)
	}
	// Output: 412 order changed
}

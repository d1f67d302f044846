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

// Middleware sees every attempt after the key and credentials are set: here
// it logs them and tags the request. The server sheds the first attempt, so
// the middleware runs twice, with the same key.
func ExampleWithMiddleware() {
	attempts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if attempts++; attempts == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(orders.Payment{ID: "pay_1", Status: orders.PaymentStatusAuthorized})
	}))
	defer srv.Close()

	logAttempt := func(req *http.Request, next idemrt.MiddlewareNext) (*http.Response, error) {
		req.Header.Set("X-Trace", "checkout")
		resp, err := next(req)
		if err == nil {
			fmt.Println(req.Header.Get("Idempotency-Key"), req.Header.Get("Authorization"), resp.StatusCode)
		}
		return resp, err
	}
	c, _ := orders.NewClient(srv.URL, orders.WithBearerAuth("token"), idemrt.WithMiddleware(logAttempt))
	pay, err := c.CreatePayment(context.Background(), orders.PaymentRequest{OrderID: "o1", Amount: 500, Currency: "EUR"},
		orders.CreatePaymentParams{IdempotencyKey: "checkout-7f3a"})
	fmt.Println(pay.ID, err)
	// Output:
	// checkout-7f3a Bearer token 503
	// checkout-7f3a Bearer token 201
	// pay_1 <nil>
}

package mock_test

// The generated orders client (golden/orders) against the mock: the fault
// tests of issue 15. No test sleeps: the client runs on a fake clock, and the
// mock's waits are injected.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/internal/testutil"
	idemgenmock "github.com/idemgen/idemgen/mock"
	idemrt "github.com/idemgen/idemgen/runtime"
)

const ordersSpec = "../testdata/specs/orders.yaml"

func client(t *testing.T, url string, opts ...idemrt.Option) (*orders.Client, *testutil.FakeClock) {
	t.Helper()
	clock := testutil.NewFakeClock()
	opts = append([]idemrt.Option{orders.WithBearerAuth("token"), idemrt.WithClock(clock),
		idemrt.WithRandom(func() float64 { return 0.5 })}, opts...)
	c, err := orders.NewClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, clock
}

const orderID = "3fa85f64-5717-4562-b3fc-2c963f66afa6"

func TestKeyedDropAfterCommitEndsWithTheResourceAndOneExecution(t *testing.T) {
	srv := idemgenmock.Start(t, ordersSpec, idemgenmock.DropAfterCommit().On("createPayment").Times(1))
	c, _ := client(t, srv.URL)
	var log []idemrt.Attempt
	pay, err := c.CreatePayment(context.Background(),
		orders.PaymentRequest{OrderID: orderID, Amount: 500, Currency: "EUR"},
		orders.CreatePaymentParams{IdempotencyKey: "checkout-7f3a"}, idemrt.WithAttemptLog(&log))
	if err != nil {
		t.Fatalf("CreatePayment: %v", err)
	}
	if pay.ID == "" || !pay.Status.IsKnown() {
		t.Errorf("payment %+v: want the created resource", pay)
	}
	if n := srv.Executions("createPayment"); n != 1 {
		t.Errorf("executions = %d, want 1", n)
	}
	if n := srv.Requests("createPayment"); n != 2 || len(log) != 2 {
		t.Errorf("requests = %d, attempts = %d: want the lost one and its replay", n, len(log))
	}
	st := srv.Stats().Operations["createPayment"]
	if st.Keys["checkout-7f3a"] != 1 || st.Faults["drop-after-commit"] != 1 {
		t.Errorf("stats %+v: want one execution under the key and one drop", st)
	}

	// The same for createOrder, keyed by its declared (optional) parameter,
	// with the key the client makes.
	srv2 := idemgenmock.Start(t, ordersSpec, idemgenmock.DropAfterCommit().On("createOrder").Times(1))
	c2, _ := client(t, srv2.URL)
	res, err := c2.CreateOrder(context.Background(), orders.CreateOrderRequest{CustomerID: orderID,
		Items: []orders.LineItem{{SKU: "sku-1", Quantity: 1, UnitPrice: 100}}}, orders.CreateOrderParams{})
	if err != nil {
		t.Fatalf("CreateOrder: %v", err)
	}
	if res.Body.ID == "" || srv2.Executions("createOrder") != 1 || srv2.Requests("createOrder") != 2 {
		t.Errorf("order %+v: executions=%d requests=%d, want the order, 1 and 2",
			res.Body, srv2.Executions("createOrder"), srv2.Requests("createOrder"))
	}
}

func TestUnsafeDropAfterCommitIsOutcomeUnknownAfterOneExecution(t *testing.T) {
	srv := idemgenmock.Start(t, ordersSpec, idemgenmock.DropAfterCommit().On("sendReceipt"))
	c, _ := client(t, srv.URL)
	err := c.SendReceipt(context.Background(), orders.SendReceiptParams{OrderID: orderID})
	if !errors.Is(err, idemrt.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	if e, r := srv.Executions("sendReceipt"), srv.Requests("sendReceipt"); e != 1 || r != 1 {
		t.Errorf("executions=%d requests=%d, want 1 and 1: never resent", e, r)
	}
}

func TestStormWithRetryAfterStopsAtTheBound(t *testing.T) {
	storm := []idemgenmock.Fault{idemgenmock.Storm(503, 1.0).On("getOrder"), idemgenmock.RetryAfter("1")}
	t.Run("attempts", func(t *testing.T) {
		srv := idemgenmock.Start(t, ordersSpec, storm...)
		c, clock := client(t, srv.URL, idemrt.WithPolicy(idemrt.Interactive, idemrt.Policy{
			MaxAttempts: 4, Timeout: time.Minute, MaxRetryAfter: 5 * time.Second}))
		_, err := c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: orderID})
		var se *idemrt.StatusError
		if !errors.As(err, &se) || se.StatusCode != 503 {
			t.Fatalf("err = %v, want the final 503", err)
		}
		if r, e := srv.Requests("getOrder"), srv.Executions("getOrder"); r != 4 || e != 0 {
			t.Errorf("requests=%d executions=%d, want 4 (MaxAttempts) and 0", r, e)
		}
		if w := clock.Waits(); len(w) != 3 || w[0] != time.Second || w[2] != time.Second {
			t.Errorf("waits %v, want three Retry-After seconds", w)
		}
	})
	t.Run("budget", func(t *testing.T) {
		srv := idemgenmock.Start(t, ordersSpec, storm...)
		c, _ := client(t, srv.URL,
			idemrt.WithPolicy(idemrt.Interactive, idemrt.Policy{MaxAttempts: 10, Timeout: time.Hour, MaxRetryAfter: 5 * time.Second}),
			idemrt.WithBudget(idemrt.Interactive, idemrt.Budget{Capacity: 3, RetryCost: 1, SuccessRefill: 0.5}))
		const calls = 5
		for i := 0; i < calls; i++ {
			c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: orderID})
		}
		// First attempts are free; the budget pays for 3 retries in all.
		if r := srv.Requests("getOrder"); r != calls+3 {
			t.Errorf("requests = %d over %d calls, want %d: the budget's bound", r, calls, calls+3)
		}
		if e := srv.Executions("getOrder"); e != 0 {
			t.Errorf("executions = %d, want 0: a storm answer executes nothing", e)
		}
	})
}

func TestResetBeforeBodyIsRetriedByAnIdempotentCall(t *testing.T) {
	srv := idemgenmock.Start(t, ordersSpec, idemgenmock.ResetBeforeBody().On("getOrder").Times(1))
	c, _ := client(t, srv.URL)
	res, err := c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: orderID})
	if err != nil {
		t.Fatalf("GetOrder: %v", err)
	}
	if res.Body.ID == "" || res.ETag == "" {
		t.Errorf("result %+v: want the order and its ETag", res)
	}
	if r, e := srv.Requests("getOrder"), srv.Executions("getOrder"); r != 2 || e != 1 {
		t.Errorf("requests=%d executions=%d, want 2 and 1", r, e)
	}
}

func TestStaleIfMatchIsPreconditionFailed(t *testing.T) {
	srv := idemgenmock.Start(t, ordersSpec)
	c, _ := client(t, srv.URL)
	ctx := context.Background()
	got, err := c.GetOrder(ctx, orders.GetOrderParams{OrderID: orderID})
	if err != nil {
		t.Fatal(err)
	}
	upd, err := c.UpdateOrder(ctx, orders.OrderUpdate{}, orders.UpdateOrderParams{OrderID: orderID, IfMatch: got.ETag})
	if err != nil {
		t.Fatalf("update with the current ETag: %v", err)
	}
	if upd.ETag == "" || upd.ETag == got.ETag {
		t.Errorf("ETag after the update %q, before %q: want a new version", upd.ETag, got.ETag)
	}
	_, err = c.UpdateOrder(ctx, orders.OrderUpdate{}, orders.UpdateOrderParams{OrderID: orderID, IfMatch: got.ETag})
	if !errors.Is(err, idemrt.ErrPreconditionFailed) {
		t.Fatalf("update with the stale ETag: %v, want ErrPreconditionFailed", err)
	}
	if e := srv.Executions("updateOrder"); e != 1 {
		t.Errorf("executions = %d, want 1 (the stale update is rejected)", e)
	}
}

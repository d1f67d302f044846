package mock_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	idemgenmock "github.com/idemgen/idemgen/mock"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// How an SDK user tests their code at the worst breakpoint: the server
// commits the payment and the response is lost. The generated client
// resends with the same key, the mock's ledger replays the stored answer,
// and the stats prove the payment ran once.
func TestStart(t *testing.T) {
	srv := idemgenmock.Start(t, "../testdata/specs/orders.yaml",
		idemgenmock.DropAfterCommit().On("createPayment").Times(1))

	c, err := orders.NewClient(srv.URL, orders.WithBearerAuth("token"))
	if err != nil {
		t.Fatal(err)
	}
	pay, err := c.CreatePayment(context.Background(),
		orders.PaymentRequest{OrderID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", Amount: 500, Currency: "EUR"},
		orders.CreatePaymentParams{IdempotencyKey: "checkout-7f3a"})
	if err != nil {
		t.Fatalf("CreatePayment: %v (reconcile with key %s)", err, idemrt.KeyOf(err))
	}
	if n := srv.Executions("createPayment"); n != 1 {
		t.Fatalf("the payment ran %d times, want once", n)
	}
	t.Logf("payment %s, executed once over %d requests", pay.ID, srv.Requests("createPayment"))
}

// The same with New, outside a test: the mock is an http.Handler.
func ExampleNew() {
	m, err := idemgenmock.New("../testdata/specs/orders.yaml", idemgenmock.Options{
		Faults: []idemgenmock.Fault{idemgenmock.DropAfterCommit().On("createPayment").Times(1)},
	})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	srv := httptest.NewServer(m)
	defer srv.Close()

	c, _ := orders.NewClient(srv.URL, orders.WithBearerAuth("token"))
	pay, err := c.CreatePayment(context.Background(),
		orders.PaymentRequest{OrderID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", Amount: 500, Currency: "EUR"},
		orders.CreatePaymentParams{IdempotencyKey: "checkout-7f3a"})
	fmt.Println(err, pay.Status)
	st := m.Stats().Operations["createPayment"]
	fmt.Println("requests:", st.Requests, "executions:", st.Executions, "under the key:", st.Keys["checkout-7f3a"])
	// Output:
	// <nil> authorized
	// requests: 2 executions: 1 under the key: 1
}

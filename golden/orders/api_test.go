package orders_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// checkout is application code that depends on the API interface, not on
// *Client: it pays an order with one key for the intent, and on an unknown
// outcome hands back the key to reconcile with.
func checkout(ctx context.Context, api orders.API, orderID string, amount int64) (string, error) {
	pay, err := api.CreatePayment(ctx, orders.PaymentRequest{OrderID: orderID, Amount: amount, Currency: "EUR"},
		orders.CreatePaymentParams{IdempotencyKey: "checkout-" + orderID})
	if errors.Is(err, idemrt.ErrOutcomeUnknown) {
		return "", errors.New("reconcile with key " + idemrt.KeyOf(err))
	}
	if err != nil {
		return "", err
	}
	return pay.ID, nil
}

// fakeAPI mocks orders.API by hand: it embeds the interface, so a method
// the test does not expect panics, and implements the one it does.
type fakeAPI struct {
	orders.API
	keys []string
	err  error
}

func (f *fakeAPI) CreatePayment(_ context.Context, body orders.PaymentRequest, params orders.CreatePaymentParams,
	_ ...idemrt.CallOption) (*orders.Payment, error) {
	f.keys = append(f.keys, params.IdempotencyKey)
	if f.err != nil {
		return nil, f.err
	}
	return &orders.Payment{ID: "pay_" + body.OrderID, Amount: body.Amount}, nil
}

// TestAPIMockedByHand: code written against orders.API runs with a
// hand-written fake (no server), and with the real client on loopback.
func TestAPIMockedByHand(t *testing.T) {
	fake := &fakeAPI{}
	if id, err := checkout(context.Background(), fake, "o1", 500); err != nil || id != "pay_o1" || len(fake.keys) != 1 ||
		fake.keys[0] != "checkout-o1" {
		t.Fatalf("with the fake: id %q err %v keys %v", id, err, fake.keys)
	}
	fake = &fakeAPI{err: &idemrt.CallError{Operation: "createPayment", Key: "checkout-o2", Err: idemrt.ErrOutcomeUnknown}}
	if _, err := checkout(context.Background(), fake, "o2", 500); err == nil || err.Error() != "reconcile with key checkout-o2" {
		t.Fatalf("an unknown outcome through the fake: %v", err)
	}

	var executions atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		executions.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"pay_real","order_id":"o3","amount":500,"currency":"EUR","status":"authorized"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := orders.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var api orders.API = c
	if id, err := checkout(context.Background(), api, "o3", 500); err != nil || id != "pay_real" || executions.Load() != 1 {
		t.Fatalf("with the client: id %q err %v, %d executions", id, err, executions.Load())
	}
}

package orders_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestFreshKeyValidationErrorIsTheBusinessAnswer: a keyed create whose key
// the engine made gets a 422 (validation) and a 409 (business conflict) on
// its first send: each is returned at once with the declared model, never
// read as "key reused" or retried as "in progress".
func TestFreshKeyValidationErrorIsTheBusinessAnswer(t *testing.T) {
	for _, status := range []int{http.StatusUnprocessableEntity, http.StatusConflict} {
		s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
			s.record(r)
			writeJSON(w, status, orders.Error{Code: "invalid", Message: "amount must be positive"})
		})
		req := orders.PaymentRequest{OrderID: "o1", Amount: -1, Currency: "EUR"}
		_, err := c.CreatePayment(context.Background(), req, orders.CreatePaymentParams{})
		var se *idemrt.StatusError
		if !errors.As(err, &se) || se.StatusCode != status || errors.Is(err, idemrt.ErrKeyReuse) || errors.Is(err, idemrt.ErrInProgress) {
			t.Fatalf("%d: err = %v", status, err)
		}
		if m, ok := se.Model.(*orders.Error); !ok || m.Code != "invalid" || idemrt.KeyOf(err) == "" {
			t.Fatalf("%d: model %#v, key %q", status, se.Model, idemrt.KeyOf(err))
		}
		if requests, _ := s.counts(); requests != 1 {
			t.Fatalf("%d: %d requests, want 1", status, requests)
		}
	}
}

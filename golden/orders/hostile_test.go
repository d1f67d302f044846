package orders_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
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

// TestCredentialsNeverFollowARedirectElsewhere: the generated With<Scheme>
// options send their credentials to the client's own server only; a 307
// to another host:port gets neither the API key nor the bearer token.
func TestCredentialsNeverFollowARedirectElsewhere(t *testing.T) {
	var leaked []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("X-API-Key")+r.Header.Get("Authorization"))
		mu.Unlock()
		writeJSON(w, http.StatusOK, orders.Payment{ID: "p1", OrderID: "o1", Amount: 1, Currency: "EUR", Status: orders.PaymentStatusCaptured})
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "k1" {
			t.Errorf("the own server got X-API-Key %q", r.Header.Get("X-API-Key"))
		}
		http.Redirect(w, r, otherURL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer own.Close()
	c, err := orders.NewClient(own.URL, orders.WithBearerAuth("tok"), orders.WithAPIKeyAuth("k1"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"}); err != nil || p.ID != "p1" {
		t.Fatalf("%+v %v", p, err)
	}
	if len(leaked) != 1 || leaked[0] != "" {
		t.Fatalf("the other server got credentials %q", leaked)
	}
}

// TestKeyedCreateWithCutBodyExecutesOnce: the server commits, answers 201
// and the connection dies mid-body. The generated method retries with the
// same key and returns the stored payment: three intents are three
// payments, never six.
func TestKeyedCreateWithCutBodyExecutesOnce(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		stored, replay := s.commitPayment(r)
		if replay {
			writeJSON(w, http.StatusCreated, stored)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(stored)))
		w.WriteHeader(http.StatusCreated)
		w.Write(stored[:len(stored)/2])
		dropConnection(t, w)
	})
	req := orders.PaymentRequest{OrderID: "o1", Amount: 500, Currency: "EUR"}
	for range 3 {
		if p, err := c.CreatePayment(context.Background(), req, orders.CreatePaymentParams{}); err != nil || p.ID == "" {
			t.Fatalf("%+v %v", p, err)
		}
	}
	if requests, executions := s.counts(); executions != 3 || requests != 6 {
		t.Fatalf("%d requests, %d executions; want 6 and 3", requests, executions)
	}
}

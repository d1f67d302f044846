package orders_test

// Behaviour tests of the generated orders client against a loopback server
// that counts business executions. They are hand-written (the golden test
// leaves files without the generated header alone) and prove the protocol
// end to end: the generated method, the runtime engine and real connections.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// server is a loopback API that records every request it receives and
// counts business executions separately.
type server struct {
	t  *testing.T
	mu sync.Mutex
	// requests counts every request that reached a handler.
	requests int
	// executions counts business actions (an order or payment created, a
	// receipt sent), whatever happened to the response.
	executions int
	// byKey is the idempotency ledger: key -> the resource created under it.
	byKey map[string][]byte
	keys  []string
	seen  []*http.Request
	body  [][]byte
}

func (s *server) record(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.seen = append(s.seen, r)
	s.body = append(s.body, b)
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	return b
}

func (s *server) counts() (requests, executions int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.executions
}

// start serves h on 127.0.0.1 and returns a client for it, with a fake
// clock so that no retry really waits.
func start(t *testing.T, h func(s *server, w http.ResponseWriter, r *http.Request)) (*server, *orders.Client, *testutil.FakeClock) {
	t.Helper()
	s := &server{t: t, byKey: map[string][]byte{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(s, w, r) }))
	t.Cleanup(ts.Close)
	clock := testutil.NewFakeClock()
	c, err := orders.NewClient(ts.URL+"/v1", idemrt.WithClock(clock), idemrt.WithRandom(func() float64 { return 0.5 }),
		orders.WithBearerAuth("secret"))
	if err != nil {
		t.Fatal(err)
	}
	return s, c, clock
}

// dropConnection simulates a response lost after the server committed: the
// handler hijacks the connection and closes it without answering.
func dropConnection(t *testing.T, w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	conn.Close()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if b, ok := v.([]byte); ok {
		w.Write(b)
		return
	}
	json.NewEncoder(w).Encode(v)
}

// commitPayment records r and runs the business action once per key: it
// stores a payment under the key, or finds the one stored (replay).
func (s *server) commitPayment(r *http.Request) (stored []byte, replay bool) {
	s.record(r)
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, replay = s.byKey[key]
	if !replay {
		s.executions++
		stored, _ = json.Marshal(orders.Payment{ID: "pay_" + key[:8], OrderID: "o1", Amount: 500, Currency: "EUR",
			Status: orders.PaymentStatusAuthorized})
		s.byKey[key] = stored
	}
	return stored, replay
}

// firstRequest reports whether only one request has arrived so far.
func (s *server) firstRequest() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen) == 1
}

func TestKeyedCreateWithLostResponseExecutesOnceAndReturnsTheSameResource(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		stored, _ := s.commitPayment(r)
		if first := s.firstRequest(); first {
			dropConnection(t, w) // committed, but the answer never leaves
			return
		}
		writeJSON(w, http.StatusCreated, stored)
	})
	var log []idemrt.Attempt
	pay, err := c.CreatePayment(context.Background(), orders.PaymentRequest{OrderID: "o1", Amount: 500, Currency: "EUR"},
		orders.CreatePaymentParams{}, idemrt.WithAttemptLog(&log))
	if err != nil {
		t.Fatalf("CreatePayment: %v", err)
	}
	requests, executions := s.counts()
	if requests != 2 || executions != 1 {
		t.Fatalf("requests=%d executions=%d, want 2 and 1", requests, executions)
	}
	if s.keys[0] == "" || s.keys[0] != s.keys[1] {
		t.Errorf("keys %q: every attempt must send the same non-empty key", s.keys)
	}
	if string(s.body[0]) != string(s.body[1]) {
		t.Errorf("bodies differ between attempts:\n%s\n%s", s.body[0], s.body[1])
	}
	if pay.ID != "pay_"+s.keys[0][:8] || len(log) != 2 || log[1].Reason != idemrt.ReasonUnknownOutcome {
		t.Errorf("payment %+v, attempts %+v", pay, log)
	}
}

func TestCallerKeyIsSentAsIs(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		writeJSON(w, http.StatusCreated, orders.Order{ID: "o1", Status: orders.OrderStatusPending})
	})
	res, err := c.CreateOrder(context.Background(), orders.CreateOrderRequest{CustomerID: "c1",
		Items: []orders.LineItem{{SKU: "s", Quantity: 1, UnitPrice: 5}}}, orders.CreateOrderParams{IdempotencyKey: "intent-42"})
	if err != nil {
		t.Fatal(err)
	}
	if s.keys[0] != "intent-42" || res.StatusCode != 201 || res.Body.ID != "o1" {
		t.Errorf("key %q, result %+v", s.keys[0], res)
	}
	if got := s.seen[0].Header.Get("Authorization"); got != "Bearer secret" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestUnkeyedUnsafePostWithLostResponseIsNotResent(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		s.mu.Lock()
		s.executions++ // the receipt e-mail is sent
		s.mu.Unlock()
		dropConnection(t, w)
	})
	err := c.SendReceipt(context.Background(), orders.SendReceiptParams{OrderID: "o1"})
	if !errors.Is(err, idemrt.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	var ce *idemrt.CallError
	if !errors.As(err, &ce) || len(ce.Attempts) != 1 || ce.Operation != "sendReceipt" {
		t.Errorf("err = %#v", err)
	}
	if idemrt.KeyOf(err) == "" {
		t.Error("the outcome-unknown error carries no key to reconcile the intent by")
	}
	if requests, executions := s.counts(); requests != 1 || executions != 1 {
		t.Errorf("requests=%d executions=%d, want 1 and 1", requests, executions)
	}
}

func TestUnauthorizedIsAttemptedOnceWithTheErrorModel(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		writeJSON(w, http.StatusUnauthorized, orders.Error{Code: "unauthorized", Message: "bad token"})
	})
	_, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"})
	if !errors.Is(err, idemrt.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != 401 {
		t.Fatalf("err = %#v", err)
	}
	if m, ok := se.Model.(*orders.Error); !ok || m.Code != "unauthorized" {
		t.Errorf("Model = %#v, want *orders.Error", se.Model)
	}
	if requests, _ := s.counts(); requests != 1 {
		t.Errorf("requests = %d, want 1", requests)
	}
}

func TestRetryAfterIsHonouredInSecondsAndAsADate(t *testing.T) {
	for name, hint := range map[string]func(now time.Time) string{
		"seconds": func(time.Time) string { return "2" },
		"date":    func(now time.Time) string { return now.Add(2 * time.Second).Format(http.TimeFormat) },
	} {
		t.Run(name, func(t *testing.T) {
			var clock *testutil.FakeClock
			s, c, fc := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
				s.record(r)
				if n, _ := s.counts(); n == 1 {
					w.Header().Set("Retry-After", hint(clock.Now()))
					writeJSON(w, http.StatusServiceUnavailable, orders.Error{Code: "busy", Message: "later"})
					return
				}
				writeJSON(w, http.StatusOK, orders.Payment{ID: "p1"})
			})
			clock = fc
			pay, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"})
			if err != nil || pay.ID != "p1" {
				t.Fatalf("GetPayment = %+v, %v", pay, err)
			}
			if waits := clock.Waits(); len(waits) != 1 || waits[0] != 2*time.Second {
				t.Errorf("waits = %v, want [2s]", waits)
			}
			if requests, _ := s.counts(); requests != 2 {
				t.Errorf("requests = %d, want 2", requests)
			}
		})
	}
}

func TestPreconditionFailedIsFinal(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		if r.Header.Get("If-Match") != `"v2"` {
			writeJSON(w, http.StatusPreconditionFailed, orders.Error{Code: "stale", Message: "re-read"})
			return
		}
		w.Header().Set("ETag", `"v3"`)
		writeJSON(w, http.StatusOK, orders.Order{ID: "o1"})
	})
	_, err := c.UpdateOrder(context.Background(), orders.OrderUpdate{Note: idemrt.NewNullable("gift")},
		orders.UpdateOrderParams{OrderID: "o1", IfMatch: `"v1"`})
	if !errors.Is(err, idemrt.ErrPreconditionFailed) {
		t.Fatalf("err = %v, want ErrPreconditionFailed", err)
	}
	var se *idemrt.StatusError
	if errors.As(err, &se) {
		if m, ok := se.Model.(*orders.Error); !ok || m.Code != "stale" {
			t.Errorf("Model = %#v", se.Model)
		}
	}
	if requests, _ := s.counts(); requests != 1 {
		t.Errorf("requests = %d, want 1 (412 is never retried)", requests)
	}
	res, err := c.UpdateOrder(context.Background(), orders.OrderUpdate{Note: idemrt.NewNullable("gift")},
		orders.UpdateOrderParams{OrderID: "o1", IfMatch: `"v2"`})
	if err != nil || res.ETag != `"v3"` || res.Body.ID != "o1" {
		t.Errorf("fresh If-Match: %+v, %v", res, err)
	}
}

func TestParametersArriveAsSpecified(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		writeJSON(w, http.StatusOK, orders.OrderList{Data: []orders.Order{}})
	})
	status := orders.OrderStatusPaid
	customer := "c 1"
	limit := int32(10)
	_, err := c.ListOrders(context.Background(), orders.ListOrdersParams{
		Status: []orders.OrderStatus{orders.OrderStatusPaid, orders.OrderStatusShipped},
		IDs:    []string{"a", "b"},
		Filter: &orders.OrderFilter{Status: &status, CustomerID: &customer},
		Limit:  &limit,
	})
	if err != nil {
		t.Fatal(err)
	}
	q := s.seen[0].URL.Query()
	if got := q["status"]; len(got) != 2 || got[0] != "paid" || got[1] != "shipped" {
		t.Errorf("status = %q, want form-exploded [paid shipped]", got)
	}
	if got := q["ids"]; len(got) != 1 || got[0] != "a,b" {
		t.Errorf("ids = %q, want one comma-joined value", got)
	}
	if q.Get("filter[status]") != "paid" || q.Get("filter[customer_id]") != "c 1" || q.Get("limit") != "10" {
		t.Errorf("query = %s", s.seen[0].URL.RawQuery)
	}
	if q.Has("cursor") {
		t.Error("an unset optional parameter was sent")
	}
}

func TestPathValuesAreEscapedAndDotSegmentsNeverSent(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		w.Header().Set("ETag", `"v1"`)
		writeJSON(w, http.StatusOK, orders.Order{ID: "x"})
	})
	res, err := c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: "a/b c?d"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.seen[0].URL.EscapedPath(); got != "/v1/orders/a%2Fb%20c%3Fd" {
		t.Errorf("escaped path = %s", got)
	}
	if res.ETag != `"v1"` {
		t.Errorf("ETag = %q", res.ETag)
	}
	for _, id := range []string{"", ".", ".."} {
		if _, err := c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: id}); !errors.Is(err, idemrt.ErrInvalidParam) {
			t.Errorf("OrderID %q: err = %v, want ErrInvalidParam", id, err)
		}
	}
	if requests, _ := s.counts(); requests != 1 {
		t.Errorf("requests = %d: a rejected path value reached the server", requests)
	}
}

func TestKeyedInProgressIsRetriedWithTheSameKeyAndKeyReuseIsFinal(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		switch n, _ := s.counts(); n {
		case 1:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusConflict, orders.Error{Code: "in_progress", Message: "still working"})
		case 2:
			writeJSON(w, http.StatusCreated, orders.Payment{ID: "p1"})
		default:
			writeJSON(w, http.StatusUnprocessableEntity, orders.Error{Code: "key_reused", Message: "other payload"})
		}
	})
	req := orders.PaymentRequest{OrderID: "o1", Amount: 1, Currency: "EUR"}
	pay, err := c.CreatePayment(context.Background(), req, orders.CreatePaymentParams{IdempotencyKey: "k1"})
	if err != nil || pay.ID != "p1" || s.keys[0] != "k1" || s.keys[1] != "k1" {
		t.Fatalf("in progress: %+v %v keys %q", pay, err, s.keys)
	}
	_, err = c.CreatePayment(context.Background(), req, orders.CreatePaymentParams{IdempotencyKey: "k1"})
	if !errors.Is(err, idemrt.ErrKeyReuse) || idemrt.KeyOf(err) != "k1" {
		t.Fatalf("key reuse: err = %v (key %q)", err, idemrt.KeyOf(err))
	}
	if requests, _ := s.counts(); requests != 3 {
		t.Errorf("requests = %d, want 3 (422 is never retried)", requests)
	}
}

func TestDefaultErrorResponseIsTyped(t *testing.T) {
	_, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		writeJSON(w, http.StatusTeapot, orders.Error{Code: "teapot", Message: "short and stout"})
	})
	err := c.DeleteOrder(context.Background(), orders.DeleteOrderParams{OrderID: "o1"})
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusTeapot {
		t.Fatalf("err = %v", err)
	}
	if m, ok := se.Model.(*orders.Error); !ok || m.Code != "teapot" {
		t.Errorf("Model = %#v, want the default response's *orders.Error", se.Model)
	}
}

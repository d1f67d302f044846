package orders_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

var orderBody = orders.CreateOrderRequest{CustomerID: "c1", Items: []orders.LineItem{{SKU: "s", Quantity: 1, UnitPrice: 5}}}

// dropFirst answers the first request that reaches it into the void: the
// server runs it to the end (the ledger commits), then the connection is
// closed without an answer.
func dropFirst(t *testing.T) func(http.Handler) http.Handler {
	var n atomic.Int64
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				h.ServeHTTP(httptest.NewRecorder(), r)
				dropConnection(t, w)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// TestServerLostResponseExecutesOnce: the answer of a keyed create is lost
// after the ledger committed it; the client's retry with the same key gets
// the stored answer and the business action ran once.
func TestServerLostResponseExecutesOnce(t *testing.T) {
	h := &echo{order: sampleOrder()}
	_, c := serveOrders(t, h, dropFirst(t), idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	var log []idemrt.Attempt
	res, err := c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{}, idemrt.WithAttemptLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	if n := h.executions.Load(); n != 1 || len(log) != 2 || log[1].Reason != idemrt.ReasonUnknownOutcome {
		t.Errorf("executions %d, attempts %+v", n, log)
	}
	if res.StatusCode != 201 || res.Body.ID != "0b1c" || res.Location != "/orders/0b1c" {
		t.Errorf("result %+v", res)
	}
}

// post sends a raw keyed create with the bearer credentials.
func post(t *testing.T, url, key, body string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/orders", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer secret")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

const rawOrder = `{"customer_id":"c1","items":[{"sku":"s","quantity":1,"unit_price":5}]}`

func TestServerKeyContract(t *testing.T) {
	h := &echo{order: sampleOrder()}
	url, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	if resp := post(t, url, "", rawOrder); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no key: %d, want 400", resp.StatusCode)
	}
	first := post(t, url, "k1", rawOrder)
	again := post(t, url, "k1", rawOrder)
	if first.StatusCode != 201 || again.StatusCode != 201 || again.Header.Get("Idempotent-Replayed") != "true" ||
		first.Header.Get("Idempotent-Replayed") != "" || again.Header.Get("Location") != "/orders/0b1c" {
		t.Errorf("first %d %v, repeat %d %v", first.StatusCode, first.Header, again.StatusCode, again.Header)
	}
	// Another principal's same key is another intent.
	if other := post(t, url, "k1", rawOrder, "Authorization", "Bearer other"); other.Header.Get("Idempotent-Replayed") != "" {
		t.Error("another caller got the stored answer of the first")
	}
	if n := h.executions.Load(); n != 2 {
		t.Errorf("executions %d, want 2 (one per caller)", n)
	}
	if resp := post(t, url, "k1", rawOrder, "Authorization", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no credentials: %d, want 401", resp.StatusCode)
	}
	_, err := c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{IdempotencyKey: "k2"})
	if err != nil {
		t.Fatal(err)
	}
	other := orderBody
	other.CustomerID = "c2"
	_, err = c.CreateOrder(context.Background(), other, orders.CreateOrderParams{IdempotencyKey: "k2"})
	if !errors.Is(err, idemrt.ErrKeyReuse) {
		t.Errorf("same key, other body: %v, want ErrKeyReuse", err)
	}
}

// TestServerKeyInFlightIs409: while one execution holds a key, a repeat is
// answered 409 with a Retry-After, and the handler does not run again.
func TestServerKeyInFlightIs409(t *testing.T) {
	h := &echo{order: sampleOrder(), block: make(chan struct{}), entered: make(chan struct{}, 1)}
	url, _ := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	done := make(chan *http.Response)
	go func() { done <- post(t, url, "k1", rawOrder) }()
	<-h.entered
	busy := post(t, url, "k1", rawOrder)
	close(h.block)
	first := <-done
	if busy.StatusCode != http.StatusConflict || busy.Header.Get("Retry-After") == "" || first.StatusCode != 201 {
		t.Errorf("in flight: %d (Retry-After %q); first %d", busy.StatusCode, busy.Header.Get("Retry-After"), first.StatusCode)
	}
	if n := h.executions.Load(); n != 1 {
		t.Errorf("executions %d", n)
	}
}

// TestServerPreconditions: a PUT without its required If-Match is 428 and
// never reaches the handler; a stale one gets the handler's 412, which the
// client reports as ErrPreconditionFailed.
func TestServerPreconditions(t *testing.T) {
	h := &echo{order: sampleOrder()}
	url, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	req, _ := http.NewRequest("PUT", url+"/orders/o1", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPreconditionRequired || len(h.got) != 0 {
		t.Errorf("no If-Match: %d, handler calls %d", resp.StatusCode, len(h.got))
	}
	_, err = c.UpdateOrder(context.Background(), orders.OrderUpdate{}, orders.UpdateOrderParams{OrderID: "o1", IfMatch: `"v1"`})
	var se *idemrt.StatusError
	if !errors.Is(err, idemrt.ErrPreconditionFailed) || !errors.As(err, &se) || se.Model.(*orders.Error).Code != "stale" {
		t.Errorf("stale If-Match: %v", err)
	}
}

// TestServerShedsWithRetryAfter: beyond WithMaxInFlight, requests are 503
// with a Retry-After, before they are decoded or reach the ledger.
func TestServerShedsWithRetryAfter(t *testing.T) {
	h := &echo{order: sampleOrder(), block: make(chan struct{}), entered: make(chan struct{}, 1)}
	url, _ := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}), idemsrv.WithMaxInFlight(1))
	done := make(chan *http.Response)
	go func() { done <- post(t, url, "k1", rawOrder) }()
	<-h.entered
	shed := post(t, url, "k2", rawOrder)
	close(h.block)
	<-done
	if shed.StatusCode != http.StatusServiceUnavailable || shed.Header.Get("Retry-After") == "" ||
		shed.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("over the limit: %d %v", shed.StatusCode, shed.Header)
	}
	if n := h.executions.Load(); n != 1 {
		t.Errorf("executions %d", n)
	}
}

func TestNewServerRefusesKeyedOperationsWithoutALedger(t *testing.T) {
	_, err := orders.NewServer(&echo{})
	if !errors.Is(err, idemsrv.ErrNoLedger) || !strings.Contains(err.Error(), "createOrder, createPayment") {
		t.Errorf("err = %v", err)
	}
	if _, err := orders.NewServer(&echo{}, idemsrv.WithoutLedger()); err != nil {
		t.Errorf("WithoutLedger: %v", err)
	}
}

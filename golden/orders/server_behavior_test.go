package orders_test

// Behaviour tests of the generated orders server: the generated client
// against it over loopback, with the ledger on SQLite. Hand-written; the
// golden test leaves files without the generated header alone.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// echo is an orders.Handler that records what it received, answers what
// it was told to, and counts business executions.
type echo struct {
	mu         sync.Mutex
	got        []any
	executions atomic.Int64
	// block, when set, holds CreateOrder until it is closed.
	block   chan struct{}
	entered chan struct{}
	// fail, when set, is returned by every method.
	fail  error
	order orders.Order
}

func (e *echo) saw(v ...any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, v)
	return e.fail
}

func (e *echo) last() []any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.got[len(e.got)-1].([]any)
}

func (e *echo) CapturePayment(_ context.Context, body *orders.CapturePaymentRequest, p orders.CapturePaymentParams) (*orders.Payment, error) {
	return &orders.Payment{ID: p.PaymentID, Amount: 7, Currency: "EUR", Status: orders.PaymentStatusCaptured}, e.saw(body, p)
}

func (e *echo) CreateOrder(_ context.Context, body orders.CreateOrderRequest, p orders.CreateOrderParams) (*orders.CreateOrderResult, error) {
	e.executions.Add(1)
	if e.block != nil {
		e.entered <- struct{}{}
		<-e.block
	}
	o := e.order
	o.CustomerID = body.CustomerID
	return &orders.CreateOrderResult{StatusCode: 201, Body: o, Location: "/orders/" + o.ID}, e.saw(body, p)
}

func (e *echo) CreatePayment(_ context.Context, body orders.PaymentRequest, p orders.CreatePaymentParams) (*orders.Payment, error) {
	e.executions.Add(1)
	return &orders.Payment{ID: "pay_1", OrderID: body.OrderID, Amount: body.Amount, Currency: body.Currency,
		Status: orders.PaymentStatusAuthorized}, e.saw(body, p)
}

func (e *echo) DeleteOrder(_ context.Context, p orders.DeleteOrderParams) error { return e.saw(p) }

func (e *echo) GetHealth(context.Context) (*orders.GetHealthResponse, error) {
	return &orders.GetHealthResponse{Status: "ok"}, e.saw()
}

func (e *echo) GetOrder(_ context.Context, p orders.GetOrderParams) (*orders.GetOrderResult, error) {
	return &orders.GetOrderResult{Body: e.order, ETag: `"v7"`}, e.saw(p)
}

func (e *echo) GetPayment(_ context.Context, p orders.GetPaymentParams) (*orders.Payment, error) {
	return &orders.Payment{ID: p.PaymentID}, e.saw(p)
}

func (e *echo) ListOrders(_ context.Context, p orders.ListOrdersParams) (*orders.OrderList, error) {
	next := "c2"
	return &orders.OrderList{Data: []orders.Order{e.order}, NextCursor: &next}, e.saw(p)
}

func (e *echo) SendReceipt(_ context.Context, p orders.SendReceiptParams) error { return e.saw(p) }

func (e *echo) UpdateOrder(_ context.Context, body orders.OrderUpdate, p orders.UpdateOrderParams) (*orders.UpdateOrderResult, error) {
	if p.IfMatch != `"v7"` {
		return nil, idemsrv.PreconditionFailed(&orders.Error{Code: "stale", Message: "read the order again"})
	}
	return &orders.UpdateOrderResult{Body: e.order, ETag: `"v8"`}, e.saw(body, p)
}

// sqliteLedger is a ledger on a fresh SQLite file.
func sqliteLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// serveOrders runs the generated server for h under /v1 on 127.0.0.1,
// behind wrap when given, and returns its URL and a client for it.
func serveOrders(t *testing.T, h orders.Handler, wrap func(http.Handler) http.Handler, opts ...idemsrv.Option) (string, *orders.Client) {
	t.Helper()
	srv, err := orders.NewServer(h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var root http.Handler = http.StripPrefix("/v1", srv)
	if wrap != nil {
		root = wrap(root)
	}
	ts := httptest.NewServer(root)
	t.Cleanup(ts.Close)
	c, err := orders.NewClient(ts.URL+"/v1", idemrt.WithClock(testutil.NewFakeClock()),
		idemrt.WithRandom(func() float64 { return 0.5 }), orders.WithBearerAuth("secret"))
	if err != nil {
		t.Fatal(err)
	}
	return ts.URL + "/v1", c
}

func sampleOrder() orders.Order {
	return orders.Order{ID: "0b1c", CustomerID: "c1", Status: orders.OrderStatusPaid, CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC),
		Items: []orders.LineItem{{SKU: "s,k/u", Quantity: 2, UnitPrice: 350}}, Metadata: map[string]string{"a": "b"},
		Note: idemrt.NewNullable("hi")}
}

// TestServerEchoesWhatTheClientSends: every parameter and body the client
// passes reaches the handler as it was, and the client decodes exactly what
// the handler returned.
func TestServerEchoesWhatTheClientSends(t *testing.T) {
	h := &echo{order: sampleOrder()}
	_, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	ctx := context.Background()
	note := "leave at the door"
	body := orders.CreateOrderRequest{CustomerID: "c1", Items: []orders.LineItem{{SKU: "a&b", Quantity: 1, UnitPrice: 5}}, Note: &note}
	res, err := c.CreateOrder(ctx, body, orders.CreateOrderParams{IdempotencyKey: "intent-1"})
	if err != nil {
		t.Fatal(err)
	}
	wantEcho(t, h, body, orders.CreateOrderParams{IdempotencyKey: "intent-1"})
	want := h.order
	if res.StatusCode != 201 || res.Location != "/orders/0b1c" || !reflect.DeepEqual(res.Body, want) {
		t.Errorf("CreateOrder result %+v, want %+v", res, want)
	}
	status, cust, lim, cursor := orders.OrderStatusShipped, "c 9;x", int32(20), "c1=="
	lp := orders.ListOrdersParams{Status: []orders.OrderStatus{orders.OrderStatusPaid, orders.OrderStatusShipped},
		IDs: []string{"a,1", "b"}, Filter: &orders.OrderFilter{Status: &status, CustomerID: &cust}, Limit: &lim, Cursor: &cursor}
	list, err := c.ListOrders(ctx, lp)
	if err != nil {
		t.Fatal(err)
	}
	wantEcho(t, h, lp)
	if len(list.Data) != 1 || !reflect.DeepEqual(list.Data[0], want) || *list.NextCursor != "c2" {
		t.Errorf("ListOrders = %+v", list)
	}
	got, err := c.GetOrder(ctx, orders.GetOrderParams{OrderID: "o/1 2"})
	if err != nil {
		t.Fatal(err)
	}
	wantEcho(t, h, orders.GetOrderParams{OrderID: "o/1 2"})
	if got.StatusCode != 200 || got.ETag != `"v7"` || !reflect.DeepEqual(got.Body, want) {
		t.Errorf("GetOrder = %+v", got)
	}
	echoRest(t, h, c)
}

// echoRest covers the operations without a body to echo back.
func echoRest(t *testing.T, h *echo, c *orders.Client) {
	ctx := context.Background()
	upd := orders.OrderUpdate{Note: idemrt.Null[string]()}
	if _, err := c.UpdateOrder(ctx, upd, orders.UpdateOrderParams{OrderID: "o1", IfMatch: `"v7"`}); err != nil {
		t.Fatal(err)
	}
	wantEcho(t, h, upd, orders.UpdateOrderParams{OrderID: "o1", IfMatch: `"v7"`})
	if err := c.DeleteOrder(ctx, orders.DeleteOrderParams{OrderID: "o1"}); err != nil {
		t.Fatal(err)
	}
	wantEcho(t, h, orders.DeleteOrderParams{OrderID: "o1"})
	amount := int64(99)
	pay, err := c.CapturePayment(ctx, &orders.CapturePaymentRequest{Amount: &amount}, orders.CapturePaymentParams{PaymentID: "p.1"})
	if err != nil || pay.ID != "p.1" || pay.Status != orders.PaymentStatusCaptured {
		t.Fatalf("CapturePayment = %+v, %v", pay, err)
	}
	wantEcho(t, h, &orders.CapturePaymentRequest{Amount: &amount}, orders.CapturePaymentParams{PaymentID: "p.1"})
	if _, err := c.CapturePayment(ctx, nil, orders.CapturePaymentParams{PaymentID: "p2"}); err != nil {
		t.Fatal(err)
	}
	wantEcho(t, h, (*orders.CapturePaymentRequest)(nil), orders.CapturePaymentParams{PaymentID: "p2"})
	if hl, err := c.GetHealth(ctx); err != nil || hl.Status != "ok" {
		t.Errorf("GetHealth = %+v, %v", hl, err)
	}
}

func wantEcho(t *testing.T, h *echo, want ...any) {
	t.Helper()
	if got := h.last(); !reflect.DeepEqual(got, want) {
		t.Errorf("handler received %#v, want %#v", got, want)
	}
}

// TestServerDeclaredErrorReachesTheClientModel: a declared status returned
// as *idemrt.StatusError arrives as the client's error with its model; an
// undeclared error is a 500 that says nothing of it.
func TestServerDeclaredErrorReachesTheClientModel(t *testing.T) {
	h := &echo{fail: &idemrt.StatusError{StatusCode: 404, Model: &orders.Error{Code: "missing", Message: "no such order"}}}
	_, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	_, err := c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: "o1"})
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || !reflect.DeepEqual(se.Model, &orders.Error{Code: "missing", Message: "no such order"}) {
		t.Fatalf("err = %v (%+v)", err, se)
	}
	h.fail = errors.New("db: connection refused to 10.0.0.5")
	err = c.DeleteOrder(context.Background(), orders.DeleteOrderParams{OrderID: "o1"}, idemrt.WithMaxAttempts(1))
	if !errors.As(err, &se) || se.StatusCode != 500 || strings.Contains(string(se.Body), "10.0.0.5") {
		t.Errorf("internal error: %v, body %s", err, se.Body)
	}
}

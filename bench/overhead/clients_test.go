package overhead

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/idemgen/idemgen/bench/clients/oapicodegen"
	ogenapi "github.com/idemgen/idemgen/bench/clients/ogen"
)

// orderID is the order the server knows.
const orderID = "ord_7f3a9c"

// client is one contender: the two calls, each returning the decoded
// order's total so the benchmark and the test can check it.
type client struct {
	name   string
	create func(ctx context.Context, key string) (int64, error)
	get    func(ctx context.Context) (int64, error)
}

// newClients builds every contender against srv, each with its own
// connection pool so that no client warms another's connections.
func newClients(tb testing.TB, srv *httptest.Server) []client {
	tb.Helper()
	builders := []func(*httptest.Server) (client, error){
		newFloor, newIdemgen, newOapiCodegen, newOgen,
	}
	var cs []client
	for _, b := range builders {
		c, err := b(srv)
		if err != nil {
			tb.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

// newHTTPClient is a client with its own Transport (and so its own pool).
func newHTTPClient(srv *httptest.Server) *http.Client {
	return &http.Client{Transport: srv.Client().Transport.(*http.Transport).Clone()}
}

// note is the optional field every request body carries.
var note = "leave at the door"

func newFloor(srv *httptest.Server) (client, error) {
	fc := &floorClient{base: srv.URL, hc: newHTTPClient(srv)}
	return client{
		name: "floor",
		create: func(ctx context.Context, key string) (int64, error) {
			o, err := fc.createOrder(ctx, key, &NewOrder{CustomerID: "cus_1842", Items: []LineItem{
				{Sku: "SKU-1001", Quantity: 2, UnitPrice: 1299},
				{Sku: "SKU-2040", Quantity: 1, UnitPrice: 4999},
				{Sku: "SKU-3307", Quantity: 5, UnitPrice: 250},
			}, Note: &note})
			return totalOf(o, err)
		},
		get: func(ctx context.Context) (int64, error) { return totalOf(fc.getOrder(ctx, orderID)) },
	}, nil
}

func totalOf(o *Order, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return o.Total, nil
}

func newOapiCodegen(srv *httptest.Server) (client, error) {
	oc, err := oapicodegen.NewClientWithResponses(srv.URL, oapicodegen.WithHTTPClient(newHTTPClient(srv)))
	if err != nil {
		return client{}, err
	}
	return client{
		name: "oapi-codegen",
		create: func(ctx context.Context, key string) (int64, error) {
			r, err := oc.CreateOrderWithResponse(ctx, &oapicodegen.CreateOrderParams{IdempotencyKey: key},
				oapicodegen.NewOrder{CustomerId: "cus_1842", Items: []oapicodegen.LineItem{
					{Sku: "SKU-1001", Quantity: 2, UnitPrice: 1299},
					{Sku: "SKU-2040", Quantity: 1, UnitPrice: 4999},
					{Sku: "SKU-3307", Quantity: 5, UnitPrice: 250},
				}, Note: &note})
			if err != nil {
				return 0, err
			}
			return oapiTotal(r.StatusCode(), r.JSON201)
		},
		get: func(ctx context.Context) (int64, error) {
			r, err := oc.GetOrderWithResponse(ctx, orderID)
			if err != nil {
				return 0, err
			}
			return oapiTotal(r.StatusCode(), r.JSON200)
		},
	}, nil
}

// oapiTotal checks that oapi-codegen decoded a success: it returns a nil
// model, not an error, for other statuses.
func oapiTotal(status int, o *oapicodegen.Order) (int64, error) {
	if o == nil {
		return 0, fmt.Errorf("oapi-codegen: HTTP %d", status)
	}
	return o.Total, nil
}

func newOgen(srv *httptest.Server) (client, error) {
	oc, err := ogenapi.NewClient(srv.URL, ogenapi.WithClient(newHTTPClient(srv)))
	if err != nil {
		return client{}, err
	}
	return client{
		name: "ogen",
		create: func(ctx context.Context, key string) (int64, error) {
			o, err := oc.CreateOrder(ctx, &ogenapi.NewOrder{CustomerId: "cus_1842", Items: []ogenapi.LineItem{
				{Sku: "SKU-1001", Quantity: 2, UnitPrice: 1299},
				{Sku: "SKU-2040", Quantity: 1, UnitPrice: 4999},
				{Sku: "SKU-3307", Quantity: 5, UnitPrice: 250},
			}, Note: ogenapi.NewOptString(note)}, ogenapi.CreateOrderParams{IdempotencyKey: key})
			if err != nil {
				return 0, err
			}
			return o.Total, nil
		},
		get: func(ctx context.Context) (int64, error) {
			o, err := oc.GetOrder(ctx, ogenapi.GetOrderParams{OrderId: orderID})
			if err != nil {
				return 0, err
			}
			return o.Total, nil
		},
	}, nil
}

package overhead

import (
	"context"
	"net/http/httptest"

	"github.com/idemgen/idemgen/bench/clients/idemgen"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// newIdemgen is the idemgen-generated client with its defaults: the
// interactive policy (10 s deadline, 3 attempts) and budget, no observer.
func newIdemgen(srv *httptest.Server) (client, error) {
	ic, err := idemgen.NewClient(srv.URL, idemrt.WithHTTPClient(newHTTPClient(srv)))
	if err != nil {
		return client{}, err
	}
	return client{
		name: "idemgen",
		create: func(ctx context.Context, key string) (int64, error) {
			o, err := ic.CreateOrder(ctx, idemgen.NewOrder{CustomerID: "cus_1842", Items: []idemgen.LineItem{
				{SKU: "SKU-1001", Quantity: 2, UnitPrice: 1299},
				{SKU: "SKU-2040", Quantity: 1, UnitPrice: 4999},
				{SKU: "SKU-3307", Quantity: 5, UnitPrice: 250},
			}, Note: &note}, idemgen.CreateOrderParams{IdempotencyKey: key})
			if err != nil {
				return 0, err
			}
			return o.Total, nil
		},
		get: func(ctx context.Context) (int64, error) {
			o, err := ic.GetOrder(ctx, idemgen.GetOrderParams{OrderID: orderID})
			if err != nil {
				return 0, err
			}
			return o.Total, nil
		},
	}, nil
}

package serverbench

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/idemgen/idemgen/bench/internal/fixtures"
	"github.com/idemgen/idemgen/bench/servers/idemgen"
	"github.com/idemgen/idemgen/bench/servers/oapicodegen"
	"github.com/idemgen/idemgen/bench/servers/ogen"
	idemsrv "github.com/idemgen/idemgen/server"
)

// The request every POST sends and what the handlers check it decoded to.
const (
	orderID      = "ord_7f3a9c"
	customerID   = "cus_1842"
	newOrderJSON = `{"customerId":"cus_1842","items":[` +
		`{"sku":"SKU-1001","quantity":2,"unitPrice":1299},` +
		`{"sku":"SKU-2040","quantity":1,"unitPrice":4999},` +
		`{"sku":"SKU-3307","quantity":5,"unitPrice":250}],` +
		`"note":"leave at the door"}`
)

// errWrongRequest is what a handler returns for a request that did not
// decode to what was sent: every server answers it with a 5xx, which the
// correctness test and the benchmarks refuse.
var errWrongRequest = errors.New("the request did not decode to what was sent")

// goodItems reports whether a decoded body holds the three items sent.
func goodItems(n int, last func() (string, int64)) bool {
	if n != 3 {
		return false
	}
	sku, price := last()
	return sku == "SKU-3307" && price == 250
}

// cannedOrder decodes fixtures.OrderJSON into v with encoding/json (every
// peer's model decodes with it), once, before anything is measured.
func cannedOrder[T any](tb testing.TB) *T {
	tb.Helper()
	v := new(T)
	if err := json.Unmarshal([]byte(fixtures.OrderJSON), v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// idemgenHandler is the handler of idemgen's server.
type idemgenHandler struct{ order *idemgen.Order }

func (h idemgenHandler) CreateOrder(_ context.Context, body idemgen.NewOrder, params idemgen.CreateOrderParams) (*idemgen.Order, error) {
	last := func() (string, int64) { return body.Items[2].SKU, body.Items[2].UnitPrice }
	if params.IdempotencyKey == "" || body.CustomerID != customerID || !goodItems(len(body.Items), last) {
		return nil, errWrongRequest
	}
	return h.order, nil
}

func (h idemgenHandler) GetOrder(_ context.Context, params idemgen.GetOrderParams) (*idemgen.Order, error) {
	if params.OrderID != orderID {
		return nil, errWrongRequest
	}
	return h.order, nil
}

// ogenHandler is the handler of ogen's server.
type ogenHandler struct{ order *ogen.Order }

func (h ogenHandler) CreateOrder(_ context.Context, body *ogen.NewOrder, params ogen.CreateOrderParams) (*ogen.Order, error) {
	last := func() (string, int64) { return body.Items[2].Sku, body.Items[2].UnitPrice }
	if params.IdempotencyKey == "" || body.CustomerId != customerID || !goodItems(len(body.Items), last) {
		return nil, errWrongRequest
	}
	return h.order, nil
}

func (h ogenHandler) GetOrder(_ context.Context, params ogen.GetOrderParams) (*ogen.Order, error) {
	if params.OrderId != orderID {
		return nil, errWrongRequest
	}
	return h.order, nil
}

func (ogenHandler) NewError(_ context.Context, err error) *ogen.ErrorStatusCode {
	return &ogen.ErrorStatusCode{StatusCode: http.StatusInternalServerError,
		Response: ogen.Error{Code: "internal", Message: err.Error()}}
}

// oapiHandler is the strict handler of oapi-codegen's server.
type oapiHandler struct{ order *oapicodegen.Order }

func (h oapiHandler) CreateOrder(_ context.Context, req oapicodegen.CreateOrderRequestObject) (oapicodegen.CreateOrderResponseObject, error) {
	body := req.Body
	if body == nil {
		return nil, errWrongRequest
	}
	last := func() (string, int64) { return body.Items[2].Sku, body.Items[2].UnitPrice }
	if req.Params.IdempotencyKey == "" || body.CustomerId != customerID || !goodItems(len(body.Items), last) {
		return nil, errWrongRequest
	}
	return oapicodegen.CreateOrder201JSONResponse(*h.order), nil
}

func (h oapiHandler) GetOrder(_ context.Context, req oapicodegen.GetOrderRequestObject) (oapicodegen.GetOrderResponseObject, error) {
	if req.OrderId != orderID {
		return nil, errWrongRequest
	}
	return oapicodegen.GetOrder200JSONResponse(*h.order), nil
}

// server is one contender: its name in the benchmark and its handler.
type server struct {
	name string
	h    http.Handler
}

// newServers builds the three servers without a ledger, idemgen's first
// and ogen's second (benchratio's floor is ogen).
func newServers(tb testing.TB) []server {
	tb.Helper()
	idem, err := idemgen.NewServer(idemgenHandler{cannedOrder[idemgen.Order](tb)}, idemsrv.WithoutLedger())
	if err != nil {
		tb.Fatal(err)
	}
	og, err := ogen.NewServer(ogenHandler{cannedOrder[ogen.Order](tb)})
	if err != nil {
		tb.Fatal(err)
	}
	strict := oapicodegen.NewStrictHandler(oapiHandler{cannedOrder[oapicodegen.Order](tb)}, nil)
	return []server{
		{"idemgen", idem},
		{"ogen", og},
		{"oapi-codegen", oapicodegen.HandlerWithOptions(strict, oapicodegen.StdHTTPServerOptions{})},
	}
}

// Package client is a TEMPORARY hand-written stand-in for the generated client (same surface).
package client

import (
	"context"
	"net/http"
	"net/url"

	idemrt "github.com/idemgen/idemgen/runtime"
)

var createOrderOp = idemrt.Operation{ID: "createOrder", Method: "POST", Path: "/orders", Safety: idemrt.Keyed,
	KeyHeader: "Idempotency-Key", Retryable: idemrt.DefaultRetryable}
var createPaymentOp = idemrt.Operation{ID: "createPayment", Method: "POST", Path: "/orders/{orderId}/payments", Safety: idemrt.Keyed,
	KeyHeader: "Idempotency-Key", Retryable: idemrt.DefaultRetryable}
var getOrderOp = idemrt.Operation{ID: "getOrder", Method: "GET", Path: "/orders/{orderId}", Safety: idemrt.Idempotent,
	Retryable: idemrt.DefaultRetryable}

type Client struct {
	base   *url.URL
	runner *idemrt.Runner
}

func NewClient(serverURL string, opts ...idemrt.Option) (*Client, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	return &Client{base: u, runner: idemrt.NewRunner(opts...)}, nil
}

func WithBearerAuth(token string) idemrt.Option {
	return idemrt.WithRequestEditor(func(ctx context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
}

type NewOrder struct {
	Item        string `json:"item"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
}
type Order struct {
	ID          string `json:"id"`
	Item        string `json:"item"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
	ChargeID    string `json:"charge_id"`
}
type NewPayment struct {
	AmountCents int64 `json:"amount_cents"`
}
type Payment struct {
	ID          string `json:"id"`
	OrderID     string `json:"order_id"`
	AmountCents int64  `json:"amount_cents"`
}
type CreateOrderParams struct{ IdempotencyKey string }
type CreatePaymentParams struct {
	OrderID        string
	IdempotencyKey string
}
type GetOrderParams struct{ OrderID string }

func (c *Client) post(ctx context.Context, op *idemrt.Operation, path string, key string, body any, out any, opts []idemrt.CallOption) error {
	b, err := idemrt.EncodeJSON(body)
	if err != nil {
		return err
	}
	req := &idemrt.Request{Method: op.Method, URL: c.url(path), Header: http.Header{"Content-Type": {"application/json"}}, Body: b, Key: key}
	resp, err := c.runner.Do(ctx, op, req, opts...)
	if err != nil {
		return err
	}
	return idemrt.DecodeJSON(resp, out)
}

func (c *Client) CreateOrder(ctx context.Context, body NewOrder, params CreateOrderParams, opts ...idemrt.CallOption) (*Order, error) {
	var o Order
	if err := c.post(ctx, &createOrderOp, "/orders", params.IdempotencyKey, body, &o, opts); err != nil {
		return nil, err
	}
	return &o, nil
}

func (c *Client) CreatePayment(ctx context.Context, body NewPayment, params CreatePaymentParams, opts ...idemrt.CallOption) (*Payment, error) {
	var p Payment
	if err := c.post(ctx, &createPaymentOp, "/orders/"+url.PathEscape(params.OrderID)+"/payments", params.IdempotencyKey, body, &p, opts); err != nil {
		return nil, err
	}
	return &p, nil
}

func (c *Client) GetOrder(ctx context.Context, params GetOrderParams, opts ...idemrt.CallOption) (*Order, error) {
	req := &idemrt.Request{Method: "GET", URL: c.url("/orders/" + url.PathEscape(params.OrderID))}
	resp, err := c.runner.Do(ctx, &getOrderOp, req, opts...)
	if err != nil {
		return nil, err
	}
	var o Order
	return &o, idemrt.DecodeJSON(resp, &o)
}

func (c *Client) url(p string) *url.URL {
	u := *c.base
	u.Path = u.Path + p
	return &u
}

package overhead

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// The floor: what a careful Go programmer writes by hand with net/http and
// encoding/json, with no retries, no key management and no attempt records.

// LineItem is one line of an order.
type LineItem struct {
	Sku       string `json:"sku"`
	Quantity  int32  `json:"quantity"`
	UnitPrice int64  `json:"unitPrice"`
}

// NewOrder is the body of createOrder.
type NewOrder struct {
	CustomerID string     `json:"customerId"`
	Items      []LineItem `json:"items"`
	Note       *string    `json:"note,omitempty"`
}

// Order is the answer of both operations.
type Order struct {
	ID         string     `json:"id"`
	CustomerID string     `json:"customerId"`
	Items      []LineItem `json:"items"`
	Note       *string    `json:"note,omitempty"`
	Status     string     `json:"status"`
	Total      int64      `json:"total"`
	CreatedAt  time.Time  `json:"createdAt"`
}

// floorClient is the hand-written client.
type floorClient struct {
	base string
	hc   *http.Client
}

// createOrder posts in with the idempotency key and decodes the 201 answer.
func (c *floorClient) createOrder(ctx context.Context, key string, in *NewOrder) (*Order, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/orders", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	return c.do(req, http.StatusCreated)
}

// getOrder reads one order.
func (c *floorClient) getOrder(ctx context.Context, id string) (*Order, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/orders/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, err
	}
	return c.do(req, http.StatusOK)
}

// do sends req and decodes an Order from a want answer.
func (c *floorClient) do(req *http.Request, want int) (*Order, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("%s %s: HTTP %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	var out Order
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	return &out, nil
}

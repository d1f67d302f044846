package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMockCommandStateful: `idemgen mock --stateful` lists each resource
// and each operation left stateless at start-up, refuses a create past
// --state-limit with 507, and POST /__idemgen/reset makes room again.
func TestMockCommandStateful(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, stderr, done := startMockCommand(t, ctx, "../../testdata/specs/orders.yaml", "--addr", "127.0.0.1:0",
		"--stateful", "--state-limit", "1", "--quiet")
	post := func(path, body string) int {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return resp.StatusCode
	}
	order := `{"customer_id":"3fa85f64-5717-4562-b3fc-2c963f66afa7","items":[{"sku":"a","quantity":1,"unit_price":1}]}`
	for i, want := range []int{201, 507} {
		if got := post("/orders", order); got != want {
			t.Errorf("create %d: %d, want %d", i, got, want)
		}
	}
	if got := post("/__idemgen/reset", ""); got != http.StatusNoContent {
		t.Errorf("reset: %d", got)
	}
	if got := post("/orders", order); got != 201 {
		t.Errorf("create after reset: %d", got)
	}
	stopMockCommand(t, cancel, done)
	for _, want := range []string{
		`stateful: /orders and /orders/{order_id}, id "id": createOrder, deleteOrder, getOrder, listOrders, updateOrder` + "\n",
		`stateful: /payments and /payments/{payment_id}, id "id": createPayment, getPayment` + "\n",
		"stateless: getHealth (GET /health): no item path /health/{id} beside it\n",
		"stateless: sendReceipt (POST /orders/{order_id}/receipt): no item path /orders/{order_id}/receipt/{id} beside it\n",
		"stateless: capturePayment (POST /payments/{payment_id}/capture): no item path /payments/{payment_id}/capture/{id} beside it\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("start-up lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestMockCommandRejectsBadStateFlags(t *testing.T) {
	for _, args := range [][]string{
		{"mock", "x.yaml", "--stateful", "--state-limit", "0"},
		{"mock", "x.yaml", "--stateful", "--proxy", "http://127.0.0.1:1"},
	} {
		var stderr bytes.Buffer
		if code := runWith((&fake{}).toolchain(), args, io.Discard, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, stderr.String())
		}
	}
}

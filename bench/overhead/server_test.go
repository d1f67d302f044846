package overhead

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/bench/internal/fixtures"
)

// orderJSON is the canned answer of both operations: a three-item order.
const orderJSON = fixtures.OrderJSON

// newServer starts the loopback server every client calls. It answers
// POST /orders with 201 when the request carries an Idempotency-Key and a
// JSON body, and GET /orders/{id} with 200; anything else is a 400, so a
// client that sends the wrong request fails the correctness test instead
// of being measured. It does no more work than it must: the clients are
// what is measured. connState, when not nil, sees every connection change.
func newServer(tb testing.TB, connState func(net.Conn, http.ConnState)) *httptest.Server {
	body := []byte(orderJSON)
	h := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		status := route(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status < 300 {
			_, _ = w.Write(body)
		} else {
			_, _ = io.WriteString(w, `{"code":"bad_request","message":"unexpected request"}`)
		}
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(h))
	srv.Config.ConnState = connState
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

// route checks the request against the spec and picks the status.
func route(r *http.Request) int {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/orders" &&
		r.Header.Get("Idempotency-Key") != "" &&
		strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") && r.ContentLength > 0:
		return http.StatusCreated
	case r.Method == http.MethodGet && r.URL.Path == "/orders/ord_7f3a9c":
		return http.StatusOK
	}
	return http.StatusBadRequest
}

package orders_test

// A server that negotiates on Accept, as Ory Kratos does: a request that
// does not ask for JSON is taken for a browser's and redirected (303) to a
// UI page. The generated client asks for the media types its operation
// declares, so it gets the JSON answer and the JSON error model.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// browserish answers like Kratos's self-service endpoints: without
// Accept: application/json a 303 to the UI; with it, the API answer, a
// created order (one execution) or a 401 error model for order "locked".
func browserish(s *server, w http.ResponseWriter, r *http.Request) {
	s.record(r)
	switch {
	case r.URL.Path == "/ui/welcome":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>please sign in</html>")
	case !strings.Contains(r.Header.Get("Accept"), "application/json"):
		http.Redirect(w, r, "/ui/welcome", http.StatusSeeOther)
	case r.Method == http.MethodPost:
		s.mu.Lock()
		s.executions++
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"id": "o1", "customer_id": "c1", "status": "pending",
			"items": []any{}, "total": 0, "created_at": "2026-01-02T03:04:05Z"})
	default:
		writeJSON(w, http.StatusUnauthorized, map[string]string{"code": "no_session", "message": "sign in first"})
	}
}

// TestAcceptGetsTheAPIAnswer: CreateOrder sends Accept: application/json,
// so the order is created once and its JSON comes back (not the UI page a
// request without Accept is sent to); GetOrder's declared 401 arrives as
// its error model, not as a redirect followed to the UI.
func TestAcceptGetsTheAPIAnswer(t *testing.T) {
	s, c, _ := start(t, browserish)
	res, err := c.CreateOrder(context.Background(), orders.CreateOrderRequest{CustomerID: "c1", Items: []orders.LineItem{{SKU: "a", Quantity: 1}}},
		orders.CreateOrderParams{})
	if err != nil || res.StatusCode != http.StatusCreated || res.Body.ID != "o1" {
		t.Fatalf("CreateOrder: %+v, %v; want the created order", res, err)
	}
	if requests, executions := s.counts(); requests != 1 || executions != 1 {
		t.Fatalf("%d requests, %d executions; want 1 and 1", requests, executions)
	}
	if got := s.seen[0].Header.Get("Accept"); got != "application/json" {
		t.Errorf("Accept %q, want application/json", got)
	}
	_, err = c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: "locked"})
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GetOrder: %v; want the 401", err)
	}
	if m, ok := se.Model.(*orders.Error); !ok || m.Code != "no_session" {
		t.Errorf("error model %#v, want Error{Code: no_session}", se.Model)
	}
	if requests, _ := s.counts(); requests != 2 {
		t.Errorf("%d requests, want 2: the UI page was fetched", requests)
	}
}

// TestAcceptOverriddenByWithHeader: idemrt.WithHeader("Accept", ...) replaces
// the Accept the method sends.
func TestAcceptOverriddenByWithHeader(t *testing.T) {
	s, c, _ := start(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		s.record(r)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"code": "no_session"})
	})
	c.GetOrder(context.Background(), orders.GetOrderParams{OrderID: "o1"}, idemrt.WithHeader("Accept", "application/vnd.shop+json"))
	if got := s.seen[0].Header.Values("Accept"); len(got) != 1 || got[0] != "application/vnd.shop+json" {
		t.Errorf("Accept %q, want only the caller's", got)
	}
}

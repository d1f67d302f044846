package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/examples/payments/client"
	_ "github.com/idemgen/idemgen/internal/testutil"
	idemsrv "github.com/idemgen/idemgen/server"
)

// TestAuthenticate: no bearer token is 401 before the API runs; a token
// reaches the handler as its tenant.
func TestAuthenticate(t *testing.T) {
	var got string
	h := Authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = tenantOf(r.Context()) }))
	for _, auth := range []string{"", "Basic x", "Bearer  "} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/orders/o1", nil)
		req.Header.Set("Authorization", auth)
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("Authorization %q: %d %v", auth, rec.Code, rec.Header())
		}
	}
	req := httptest.NewRequest("GET", "/orders/o1", nil)
	req.Header.Set("Authorization", "Bearer alice")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if got != "alice" {
		t.Errorf("tenant %q, want alice", got)
	}
}

// TestInvalidPaymentIs400: the handler's refusal of a non-positive amount
// is a status the spec declares, so the generated server sends it as is
// (an undeclared one would be a 500 that frees the key).
func TestInvalidPaymentIs400(t *testing.T) {
	srv, err := client.NewServer(&Payments{hooks: newHookState(Hooks{})}, idemsrv.WithoutLedger())
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/orders/o1/payments", strings.NewReader(`{"amount_cents":0}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "k1")
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "amount_cents") {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/examples/payments/client"
	_ "github.com/idemgen/idemgen/internal/testutil"
	idemsrv "github.com/idemgen/idemgen/server"
)

// TestTokens: through the generated server, a request without a bearer
// token, with another scheme or with a token that names no tenant is 401
// before the API runs; a token, refreshed or not, names its tenant.
func TestTokens(t *testing.T) {
	srv, err := client.NewServer(&Payments{hooks: newHookState(Hooks{})}, idemsrv.WithoutLedger(), idemsrv.WithSecurity(Tokens{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range []string{"", "Basic x", "Bearer  ", "Bearer al ice", "Bearer .2"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/orders/o1/payments", strings.NewReader(`{"amount_cents":0}`))
		req.Header.Set("Authorization", auth)
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("Authorization %q: %d %v", auth, rec.Code, rec.Header())
		}
	}
	for tok, want := range map[string]string{"alice": "alice", "alice.2": "alice", "bob.x.y": "bob"} {
		if got, err := (Tokens{}).BearerAuth(context.Background(), "createOrder", idemsrv.BearerCredential{Token: tok}); got != want || err != nil {
			t.Errorf("token %q: tenant %q, %v; want %q", tok, got, err, want)
		}
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

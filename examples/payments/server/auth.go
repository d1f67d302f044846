package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

type tenantKey struct{}

// Authenticate answers 401 to a request without a bearer token and passes
// the others on with the token's tenant in their context (tenantOf). A real
// deployment verifies the token and maps it to a tenant; the example trusts
// it as the tenant id. The ledger scopes keys by a hash of the same
// Authorization header, so one tenant never sees another's stored answers.
func Authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		tok = strings.TrimSpace(tok)
		if !ok || tok == "" {
			writeProblem(w, http.StatusUnauthorized, "a bearer token is required")
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, tok)))
	})
}

// tenantOf is the tenant Authenticate found; "" outside it.
func tenantOf(ctx context.Context) string {
	t, _ := ctx.Value(tenantKey{}).(string)
	return t
}

// writeProblem answers outside the generated server (authentication and the
// test hooks) in the same RFC 9457 shape.
func writeProblem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"title": http.StatusText(status), "status": status, "detail": detail})
}

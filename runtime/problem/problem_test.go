package problem

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWriteSendsOneSetOfHeaders pins the bytes and headers of a problem
// answer: what every idemgen server, ledger and receiver sends.
func TestWriteSendsOneSetOfHeaders(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, http.StatusConflict, InProgress, "retry with the same key")
	const want = `{"type":"https://idemgen.dev/problems/request-in-progress","title":"Conflict","status":409,"detail":"retry with the same key"}`
	if w.Code != 409 || w.Body.String() != want {
		t.Fatalf("got %d %s, want 409 %s", w.Code, w.Body, want)
	}
	h := w.Header()
	if h.Get("Content-Type") != ContentType || h.Get("Content-Length") != "126" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("headers %v", h)
	}
}

// TestIsComparesNames: a client recognises a type by its name, whoever's
// host the URI names, and never an empty or different one.
func TestIsComparesNames(t *testing.T) {
	for _, c := range []struct {
		got, want string
		is        bool
	}{
		{KeyReused, KeyReused, true},
		{"https://api.example/problems/idempotency-key-reused", KeyReused, true},
		{"idempotency-key-reused", KeyReused, true},
		{InProgress, KeyReused, false},
		{"https://api.example/problems/out-of-stock", InProgress, false},
		{"", InProgress, false},
	} {
		if Is(c.got, c.want) != c.is {
			t.Errorf("Is(%q, %q) = %v", c.got, c.want, !c.is)
		}
	}
}

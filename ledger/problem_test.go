package ledger

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLedgerRefusalIsNosniff: the ledger's refusals are written by the one
// problem writer, with the headers every idemgen problem answer carries
// (X-Content-Type-Options: nosniff was missing here alone).
func TestLedgerRefusalIsNosniff(t *testing.T) {
	l, err := New(Config{Store: &stuckStore{}, Caller: func(*http.Request) (string, error) { return "c", nil }})
	if err != nil {
		t.Fatal(err)
	}
	executed := 0
	h := l.Handle("createOrder", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { executed++ }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{}`)))
	hd := w.Header()
	if w.Code != http.StatusBadRequest || hd.Get("Content-Type") != "application/problem+json" ||
		hd.Get("X-Content-Type-Options") != "nosniff" || executed != 0 {
		t.Fatalf("%d %v %s, executed %d; want a nosniff 400 problem and no execution", w.Code, hd, w.Body, executed)
	}
}

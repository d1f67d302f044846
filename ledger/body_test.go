package ledger

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/problem"
)

// failingBody gives a few bytes, then err.
type failingBody struct {
	sent bool
	err  error
}

func (b *failingBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, `{"a":`), nil
	}
	return 0, b.err
}

// TestKeyedBodyThatFailsIsRefusedUnreserved: a keyed body cut by the
// server's read deadline is a 408 problem, one over Config.MaxBody a 413,
// one that breaks off a 400; none reaches the store (whose methods would
// panic here) or the handler.
func TestKeyedBodyThatFailsIsRefusedUnreserved(t *testing.T) {
	l, err := New(Config{Store: &stuckStore{}, MaxBody: 64, Caller: func(*http.Request) (string, error) { return "c", nil }})
	if err != nil {
		t.Fatal(err)
	}
	executed := 0
	h := l.Handle("createOrder", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { executed++ }))
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		name   string
		body   io.Reader
		status int
		typ    string
	}{
		{"deadline", &failingBody{err: timeout}, http.StatusRequestTimeout, problem.BodyTimeout},
		{"too big", strings.NewReader(strings.Repeat(" ", 65)), http.StatusRequestEntityTooLarge, problem.BodyTooLarge},
		{"broken off", &failingBody{err: io.ErrUnexpectedEOF}, http.StatusBadRequest, problem.BodyUnreadable},
	} {
		r := httptest.NewRequest(http.MethodPost, "/orders", tc.body)
		r.Header.Set("Idempotency-Key", "k")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.typ) || strings.Contains(w.Body.String(), "tcp") {
			t.Errorf("%s: %d %s, want %d %s", tc.name, w.Code, w.Body, tc.status, tc.typ)
		}
	}
	if executed != 0 {
		t.Errorf("the handler ran %d times", executed)
	}
}

// TestReadAtMostWhateverTheLengthSays: the body is read whole whatever
// Content-Length claims (shorter, longer, absent, in small reads), and one
// byte over the bound is a *http.MaxBytesError, never a truncated body.
func TestReadAtMostWhateverTheLengthSays(t *testing.T) {
	const body = `{"item":"book","qty":1}`
	for _, declared := range []int64{-1, 0, 5, int64(len(body)), int64(len(body)) + 7, 63} {
		r := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(body[:3]), strings.NewReader(body[3:])))
		r.ContentLength = declared
		got, err := readAtMost(httptest.NewRecorder(), r, 64)
		if err != nil || string(got) != body {
			t.Errorf("Content-Length %d: %q, %v; want the whole body", declared, got, err)
		}
	}
	for _, declared := range []int64{-1, 10, 64, 65} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", 65)))
		r.ContentLength = declared
		var tooBig *http.MaxBytesError
		if _, err := readAtMost(httptest.NewRecorder(), r, 64); !errors.As(err, &tooBig) {
			t.Errorf("Content-Length %d, 65 bytes over a bound of 64: %v, want *http.MaxBytesError", declared, err)
		}
	}
}

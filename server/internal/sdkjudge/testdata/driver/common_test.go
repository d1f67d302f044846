// Package driver runs in the temporary module TestOfficialSDKs writes: the
// OpenAI and Stripe servers generated there, called by openai-go and
// stripe-go on 127.0.0.1.
package driver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
)

// recorder keeps the raw body of the last request that reached the server,
// so a test can compare what the SDK sent with what the handler received.
type recorder struct {
	mu   sync.Mutex
	body []byte
	hdr  http.Header
	n    int
}

func (rec *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		rec.mu.Lock()
		rec.body, rec.hdr, rec.n = b, r.Header.Clone(), rec.n+1
		rec.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (rec *recorder) last() ([]byte, http.Header) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.body, rec.hdr
}

// serve runs h on 127.0.0.1 under prefix until the test ends and returns
// its URL.
func serve(t *testing.T, prefix string, h http.Handler) string {
	mux := http.NewServeMux()
	if prefix == "" {
		mux.Handle("/", h)
	} else {
		mux.Handle(prefix+"/", http.StripPrefix(prefix, h))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// jsonEqual reports whether a and b hold the same JSON value (member order
// and spacing aside), with both texts for the message.
func jsonEqual(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v in %s", what, err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v in %s", what, err, b)
	}
	if !reflect.DeepEqual(x, y) {
		t.Errorf("%s differ:\n%s\n%s", what, a, b)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// received hands one value from a handler to the test across goroutines.
type received[T any] struct {
	mu sync.Mutex
	v  T
	n  int
}

func (r *received[T]) set(v T) {
	r.mu.Lock()
	r.v, r.n = v, r.n+1
	r.mu.Unlock()
}

func (r *received[T]) get() (T, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.v, r.n
}

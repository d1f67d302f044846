package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
)

// warmUp leaves one idle keep-alive connection to srv in tr's pool.
func warmUp(t *testing.T, tr *http.Transport, base string) {
	t.Helper()
	warm, err := (&http.Client{Transport: tr}).Get(base + "/warm")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, warm.Body)
	warm.Body.Close()
}

// TestLoopbackTransportNeverResendsUnsafe: on a reused keep-alive
// connection that dies after the request was written, net/http resends a
// GET, or a POST with an X-Idempotency-Key header, by itself. For an unsafe
// operation (a GET declared x-idempotent: false, a POST whose spec declares
// X-Idempotency-Key as an ordinary header) it must not: the server executes
// once and the call ends with an unknown outcome.
func TestLoopbackTransportNeverResendsUnsafe(t *testing.T) {
	cases := []struct {
		name   string
		method string
		header http.Header
		body   []byte
	}{
		{"GET declared not idempotent", "GET", nil, nil},
		{"HEAD declared not idempotent", "HEAD", nil, nil},
		{"POST with an ordinary X-Idempotency-Key header", "POST", http.Header{"X-Idempotency-Key": {"abc"}}, []byte(`{"amount":1}`)},
		{"bodiless POST with an Idempotency-Key header", "POST", http.Header{"Idempotency-Key": {"abc"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, srv := newShop(t, dropFirst("hijack"))
			r, tr := loopRunner(t, quickPolicy())
			warmUp(t, tr, srv.URL)
			op := Operation{ID: "unsafeThing", Method: c.method, Path: "/things", Safety: Unsafe, Retryable: DefaultRetryable}
			var log []Attempt
			_, err := r.Do(context.Background(), &op, &Request{Method: c.method, URL: mustURL(t, srv.URL+"/things"),
				Header: c.header, Body: c.body}, WithAttemptLog(&log))
			if !errors.Is(err, ErrOutcomeUnknown) || KeyOf(err) == "" {
				t.Fatalf("err %v", err)
			}
			if s.executions.Load() != 1 || s.hits.Load() != 1 || len(log) != 1 || errors.Is(log[0].Err, ErrTransportReplay) {
				t.Fatalf("%d executions, %d hits, records %+v", s.executions.Load(), s.hits.Load(), log)
			}
		})
	}
	// A safe GET is still replayed by the Transport, and counted.
	s, srv := newShop(t, dropFirst("hijack"))
	r, tr := loopRunner(t, quickPolicy())
	warmUp(t, tr, srv.URL)
	var log []Attempt
	op := Operation{ID: "getThing", Method: "GET", Path: "/things", Safety: Idempotent, Retryable: DefaultRetryable}
	resp, err := r.Do(context.Background(), &op, &Request{Method: "GET", URL: mustURL(t, srv.URL+"/things")}, WithAttemptLog(&log))
	if err != nil || resp.StatusCode != 201 || s.hits.Load() != 2 || len(log) != 2 || log[1].Reason != ReasonTransportReplay {
		t.Fatalf("safe GET: %v, %d hits, records %+v", err, s.hits.Load(), log)
	}
}

package runtime

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoopbackHedgeCancelsTheSlowRequest: against a real server on
// 127.0.0.1 whose first request stalls, a hedged GET gets the second
// request's answer, and the server sees the first request's connection
// closed (its context ends): the loser is cancelled on the wire, not left
// running.
func TestLoopbackHedgeCancelsTheSlowRequest(t *testing.T) {
	var hits atomic.Int32
	abandoned := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			select {
			case <-r.Context().Done():
				abandoned <- struct{}{}
			case <-time.After(10 * time.Second):
			}
			return
		}
		if r.Header.Get("Authorization") != "Bearer t" || r.URL.Query().Get("api_key") != "k" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "fast")
	}))
	defer srv.Close()
	op := Operation{ID: "getThing", Method: "GET", Path: "/things/1", Safety: Idempotent, Retryable: DefaultRetryable}
	// An editor that writes the header and the query of every send, while
	// the slow one is still in flight (go test -race watches).
	edit := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer t")
		req.URL.RawQuery = "api_key=k"
		return nil
	}
	r := NewRunner(WithHTTPClient(&http.Client{Transport: &http.Transport{}}), WithoutAdaptiveThrottle(),
		WithRequestEditor(edit), WithHedging(HedgePolicy{After: 5 * time.Millisecond, MaxAttempts: 2}))
	var log []Attempt
	resp, err := r.Do(context.Background(), &op, &Request{Method: "GET", URL: mustURL(t, srv.URL+op.Path)}, WithAttemptLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(b) != "fast" || hits.Load() != 2 {
		t.Fatalf("body %q after %d requests", b, hits.Load())
	}
	waitFor(t, abandoned, "the server to see the slow request's connection closed")
	if len(log) != 2 || log[0].Outcome != OutcomeCancelled || log[1].Reason != ReasonHedge || !log[1].Final {
		t.Fatalf("records %+v", log)
	}
}

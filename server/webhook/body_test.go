package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestSlowBodyIs408: a delivery whose body does not arrive within
// WithLimits' read timeout is answered 408 (problem.BodyTimeout), as
// the server's own routes answer it, and its handler never runs.
func TestSlowBodyIs408(t *testing.T) {
	var ran atomic.Int64
	route := NewRoute("paid", "", func(context.Context, map[string]any) error { ran.Add(1); return nil })
	rc, err := NewReceiver([]Route{route}, WithoutVerification(), WithoutDedupe(),
		WithLimits(0, 300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.StripPrefix("/hooks", rc))
	defer ts.Close()
	select {
	case resp := <-trickle(t, ts.Listener.Addr().String(), "/hooks/paid", 1000):
		if resp == nil || resp.StatusCode != http.StatusRequestTimeout || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("answer %+v, want a 408 problem", resp)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer 10 s into a body with a 300 ms timeout")
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times", n)
	}
}

package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
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

// TestPanickingHandlerReportsPanicError: a handler that panics is answered
// a 500 problem that says nothing of it, and WithOnError receives the
// server side's one panic type, *ledger.PanicError, with the value and the
// stack, as a keyed operation's panic is reported.
func TestPanickingHandlerReportsPanicError(t *testing.T) {
	route := NewRoute("paid", "", func(context.Context, map[string]any) error { panic("handler bug") })
	var reported []error
	rc, err := NewReceiver([]Route{route}, WithoutVerification(), WithoutDedupe(),
		WithOnError(func(_ *http.Request, err error) { reported = append(reported, err) }))
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	rc.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/paid", strings.NewReader(`{"type":"paid","id":"evt_1"}`)))
	var pe *ledger.PanicError
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "handler bug") {
		t.Errorf("answer %d %s, want a 500 that does not tell the panic", w.Code, w.Body.String())
	}
	if len(reported) != 1 || !errors.As(reported[0], &pe) || pe.Value != "handler bug" || len(pe.Stack) == 0 {
		t.Fatalf("reported %v, want one *ledger.PanicError with the value and the stack", reported)
	}
}

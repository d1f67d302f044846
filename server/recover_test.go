package idemsrv

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/ledger"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
)

// errBoom is what the test handlers panic with.
var errBoom = errors.New("boom: secret internal detail")

// panicServer serves GET /p with h on loopback and counts the connections
// it accepts and the errors WithOnError receives.
func panicServer(t *testing.T, h http.HandlerFunc) (url string, conns *atomic.Int64, reported func() []error) {
	t.Helper()
	var mu sync.Mutex
	var errs []error
	e := newTestEngine(t, WithMaxInFlight(1), WithOnError(func(_ *http.Request, err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}))
	handle(t, e, Route{Op: &idemrt.Operation{ID: "p", Method: "GET", Path: "/p", Safety: idemrt.Idempotent}}, h)
	conns = &atomic.Int64{}
	ts := httptest.NewUnstartedServer(e.Root())
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL + "/p", conns, func() []error {
		mu.Lock()
		defer mu.Unlock()
		return append([]error(nil), errs...)
	}
}

// TestHandlerPanicIs500: a handler that panics is answered a 500 problem
// that says nothing of the panic, on a connection that stays open (the
// second request reuses it), its slot is free again, and WithOnError gets
// a *ledger.PanicError holding the panic's value.
func TestHandlerPanicIs500(t *testing.T) {
	var runs atomic.Int64
	url, conns, reported := panicServer(t, func(http.ResponseWriter, *http.Request) {
		runs.Add(1)
		panic(errBoom)
	})
	for i := range 2 {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatalf("request %d: %v (the connection was cut)", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || resp.Header.Get("Content-Type") != "application/problem+json" ||
			!strings.Contains(string(body), problem.Internal) || strings.Contains(string(body), "secret") {
			t.Errorf("request %d: %d %q", i, resp.StatusCode, body)
		}
	}
	if n := conns.Load(); n != 1 || runs.Load() != 2 {
		t.Errorf("%d connections for %d runs, want 1 for 2", n, runs.Load())
	}
	errs := reported()
	var pe *ledger.PanicError
	if len(errs) != 2 || !errors.As(errs[0], &pe) || pe.Value != errBoom || !errors.Is(errs[0], errBoom) || len(pe.Stack) == 0 {
		t.Errorf("reported %v", errs)
	}
}

// TestHandlerPanicAfterTheAnswerStartedCuts: a panic once the status is
// out cannot become a 500; the connection is cut so the client sees the
// answer incomplete, and WithOnError is told. http.ErrAbortHandler aborts
// as net/http means it, and is not reported.
func TestHandlerPanicAfterTheAnswerStartedCuts(t *testing.T) {
	url, _, reported := panicServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("abort") {
			panic(http.ErrAbortHandler)
		}
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("half"))
		http.NewResponseController(w).Flush()
		panic(errBoom)
	})
	resp, err := http.Get(url)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Errorf("a panic mid-answer reached the client as a whole %d answer", resp.StatusCode)
	}
	if _, err := http.Get(url + "?abort"); err == nil {
		t.Error("http.ErrAbortHandler did not cut the connection")
	}
	var pe *ledger.PanicError
	if errs := reported(); len(errs) != 1 || !errors.As(errs[0], &pe) || pe.Value != errBoom {
		t.Errorf("reported %v, want the one mid-answer panic", errs)
	}
}

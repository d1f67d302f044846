package idemsrv

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// trickle sends a POST to addr whose body of size bytes comes one byte
// every 100 ms, until the server answers (or the test ends), and returns
// the answer.
func trickle(t *testing.T, addr, path string, size int) <-chan *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", path, size)
	answered := make(chan struct{})
	go func() {
		for {
			select {
			case <-answered:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	out := make(chan *http.Response, 1)
	go func() {
		defer close(answered)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			out <- nil
			return
		}
		resp.Body.Close()
		out <- resp
	}()
	return out
}

// TestSlowUnkeyedBodyIs408: a body that does not arrive within
// WithBodyLimits' timeout is a 408 problem, and the handler never runs.
func TestSlowUnkeyedBodyIs408(t *testing.T) {
	e := newTestEngine(t, WithBodyLimits(0, 500*time.Millisecond))
	var executed atomic.Int64
	handle(t, e, Route{Op: &idemrt.Operation{ID: "post", Method: "POST", Path: "/things"}}, func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		d := e.Decode(w, r)
		if d.JSON(&v, true); d.Failed() {
			return
		}
		executed.Add(1)
		w.WriteHeader(http.StatusCreated)
	})
	ts := httptest.NewServer(e.Root())
	defer ts.Close()
	select {
	case resp := <-trickle(t, ts.Listener.Addr().String(), "/things", 1000):
		if resp == nil || resp.StatusCode != http.StatusRequestTimeout || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("answer %+v, want a 408 problem", resp)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer 10 s into a body with a 500 ms timeout")
	}
	if n := executed.Load(); n != 0 {
		t.Errorf("executed %d times", n)
	}
}

// TestHandlerOutlivesTheBodyTimeout: once the body is in, the body
// timeout is over: a handler that works three times as long keeps its
// request's context (net/http clears the read deadline at the body's end,
// and no later read sets it again).
func TestHandlerOutlivesTheBodyTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	e := newTestEngine(t, WithBodyLimits(0, timeout))
	handle(t, e, Route{Op: &idemrt.Operation{ID: "post", Method: "POST", Path: "/things"}}, func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		d := e.Decode(w, r)
		if d.JSON(&v, true); d.Failed() {
			return
		}
		select {
		case <-r.Context().Done():
			w.WriteHeader(http.StatusServiceUnavailable)
		case <-time.After(3 * timeout):
			w.WriteHeader(http.StatusCreated)
		}
	})
	ts := httptest.NewServer(e.Root())
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/things", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("status %d: the handler's context ended with the body timeout", resp.StatusCode)
	}
}

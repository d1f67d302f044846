package runtime

import (
	"context"
	"net/http"
	"testing"
	"time"
	"unsafe"
)

// TestCallStateSizeClass pins the call state at 512 bytes at most: every
// call allocates one, the bytes a call allocates are what the garbage
// collector's share of the per-call cost grows with, and up to 512 bytes
// the allocator takes its faster path for objects with pointers (no
// per-object header). See docs/benchmarks.md, "The GET's last
// instructions".
func TestCallStateSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(call{}); n > 512 {
		t.Fatalf("the call state is %d bytes: past 512", n)
	}
}

// TestCallOptionsLeaveDefaultsAlone: a call's options (no deadline, one
// attempt, a query parameter) apply to it alone; the next call without
// options gets the Runner's defaults and policy, which it reads in place.
func TestCallOptionsLeaveDefaultsAlone(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503)}}
	pol := quickPolicy()
	pol.Timeout = time.Minute
	r := newTestRunner(d, newFakeClock(), WithPolicy(Interactive, pol), WithQuery("d", "1"))
	var log []Attempt
	_, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")},
		WithTimeout(-1), WithMaxAttempts(1), WithQuery("c", "2"), WithAttemptLog(&log))
	if err == nil || len(log) != 1 || log[0].TimeLeft != 0 {
		t.Fatalf("with options: err %v, records %+v", err, log)
	}
	_, err = r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")}, WithAttemptLog(&log))
	if err == nil || len(log) != 3 || log[0].TimeLeft != time.Minute {
		t.Fatalf("defaults: err %v, records %+v", err, log)
	}
	if first, last := d.reqs[0].URL.RawQuery, d.reqs[len(d.reqs)-1].URL.RawQuery; first != "d=1&c=2" || last != "d=1" {
		t.Fatalf("queries %q then %q; want d=1&c=2 then d=1", first, last)
	}
}

// TestCallLeavesTheCallersRequestAlone: the call reads the caller's Request
// in place, and options that change the request (a query parameter, a
// JSON member) change the call's own copy, never the caller's.
func TestCallLeavesTheCallersRequestAlone(t *testing.T) {
	d := &fakeDoer{script: []step{ok200}}
	r := newTestRunner(d, newFakeClock())
	u := mustURL(t, "http://api.test/things/1")
	req := &Request{Method: "PUT", URL: u, Body: []byte(`{"a":1}`), Header: http.Header{"Content-Type": {"application/json"}}}
	resp, err := r.Do(context.Background(), &idempotentOp, req, WithQuery("q", "1"), WithJSONField("b", 2))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.URL != u || u.RawQuery != "" || string(req.Body) != `{"a":1}` {
		t.Fatalf("the caller's request changed: %s, %s", req.URL, req.Body)
	}
	if got := d.reqs[0].URL.RawQuery; got != "q=1" || d.bodies[0] != `{"a":1,"b":2}` {
		t.Fatalf("sent %q, %s", got, d.bodies[0])
	}
}

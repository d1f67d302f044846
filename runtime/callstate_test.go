package runtime

import (
	"context"
	"testing"
	"time"
	"unsafe"
)

// TestCallStateSizeClass pins the call state within the 640-byte
// allocation size class: every call allocates one, and the bytes a call
// allocates are what the garbage collector's share of the per-call cost
// grows with (docs/benchmarks.md, "The GET's last instructions").
func TestCallStateSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(call{}); n > 640 {
		t.Fatalf("the call state is %d bytes: past the 640-byte size class", n)
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

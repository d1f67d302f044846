package runtime

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestSharedDeadlineReleased: a window stays live while it is the current
// one or has a call; once replaced and left by its last call, its context
// is cancelled (its timer stopped) and no call can join it again.
func TestSharedDeadlineReleased(t *testing.T) {
	var dl deadlines
	t0 := time.Now()
	w1, again := dl.get(time.Hour, t0), dl.get(time.Hour, t0)
	if w1 != again {
		t.Fatal("calls started together should share one window")
	}
	w1.leave()
	again.leave()
	if w1.ctx.Err() != nil {
		t.Fatal("the current window was released when its calls left")
	}
	w2 := dl.get(time.Hour, t0.Add(2*deadlineSlack))
	if w2 == w1 || !errors.Is(w1.ctx.Err(), context.Canceled) || w1.join() {
		t.Fatalf("a replaced window without calls: err %v", w1.ctx.Err())
	}
	w3 := dl.get(time.Hour, t0.Add(4*deadlineSlack))
	if w2.ctx.Err() != nil {
		t.Fatal("a replaced window was released while a call still ran under it")
	}
	w2.leave()
	if !errors.Is(w2.ctx.Err(), context.Canceled) {
		t.Fatal("a replaced window was kept after its last call left")
	}
	if w3.ctx.Err() != nil {
		t.Fatal("the current window was released")
	}
	if d, ok := w3.ctx.Deadline(); !ok || !d.Equal(t0.Add(4*deadlineSlack+time.Hour+deadlineSlack)) {
		t.Fatalf("deadline %v, %v", d, ok)
	}
	w3.leave()
}

// TestSharedDeadlineNeverReleasedInUse: under concurrent calls whose start
// times keep moving windows on, no call ever holds a released window.
func TestSharedDeadlineNeverReleasedInUse(t *testing.T) {
	var dl deadlines
	t0 := time.Now()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				now := t0.Add(time.Duration(i*8+g) * deadlineSlack / 16)
				w := dl.get(time.Hour, now)
				if w.ctx.Err() != nil {
					t.Errorf("call %d/%d got a released window", g, i)
					return
				}
				w.leave()
			}
		}()
	}
	wg.Wait()
}

// TestFinishedCallsReleaseTheirWindow: through the engine, a finished call
// has left its window; once a newer window replaces it, the window is
// released, while a call still running keeps its own live.
func TestFinishedCallsReleaseTheirWindow(t *testing.T) {
	d := &fakeDoer{script: []step{ok200}}
	pol := quickPolicy()
	pol.Timeout = time.Minute
	r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(d), WithPolicy(Interactive, pol))
	first := doWindow(t, r)
	if n := first.users.Load(); n != 0 {
		t.Fatalf("a finished call is still counted: %d users", n)
	}
	// A call starting an hour later gets a new window (no sleeping: the
	// window is asked for directly, as initDeadline does).
	later := r.deadlines[Interactive].get(pol.Timeout, time.Now().Add(time.Hour))
	if later == first || !errors.Is(first.ctx.Err(), context.Canceled) {
		t.Fatalf("the replaced window: err %v", first.ctx.Err())
	}
	if later.ctx.Err() != nil {
		t.Fatal("the current window was released")
	}
	later.leave()
}

// doWindow makes one call and returns the shared window it ran under.
func doWindow(t *testing.T, r *Runner) *window {
	t.Helper()
	var w *window
	d := r.doer
	r.doer = doerFunc(func(req *http.Request) (*http.Response, error) {
		w = req.Context().Value(engineKey{}).(*call).ctx.shared
		return d.Do(req)
	})
	defer func() { r.doer = d }()
	resp, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")})
	if err != nil || w == nil {
		t.Fatalf("err %v, window %v", err, w)
	}
	resp.Body.Close()
	return w
}

package shed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakeTimers stands in for the queue's timers: each wait the Shedder
// starts is announced on started, with a channel the test fires.
type fakeTimers struct {
	started chan fakeTimer
}

type fakeTimer struct {
	d    time.Duration
	fire chan time.Time
}

func (f *fakeTimers) after(d time.Duration) (<-chan time.Time, func() bool) {
	t := fakeTimer{d: d, fire: make(chan time.Time, 1)}
	f.started <- t
	return t.fire, func() bool { return true }
}

// queuedShedder is a Shedder with 4 slots, all busy, a queue of 1 and a
// measured service time of 10 ms.
func queuedShedder(t *testing.T) (*Shedder, *fakeTimers) {
	t.Helper()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	timers := &fakeTimers{started: make(chan fakeTimer, 4)}
	s := New(4, func() time.Time { return clock })
	s.maxQueued, s.after = 1, timers.after
	s.service, s.measured = 10*time.Millisecond, true
	for range 4 {
		if _, q, ok := s.admit(); !ok || q != nil {
			t.Fatal("a free slot was refused")
		}
	}
	return s, timers
}

// serveAsync serves one request through h and returns its recorder once
// it is answered.
func serveAsync(h http.Handler) <-chan *httptest.ResponseRecorder {
	out := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		out <- w
	}()
	return out
}

// TestShedQueueHandsOverAFreedSlot: with every slot busy, a request that
// finds room in the queue waits, and the slot the next finished request
// frees goes to it directly (the count in flight stays at the limit); a
// request that finds the queue full is refused at once.
func TestShedQueueHandsOverAFreedSlot(t *testing.T) {
	s, timers := queuedShedder(t)
	served := make(chan struct{}, 1)
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served <- struct{}{} }))
	queued := serveAsync(h)
	timer := <-timers.started
	if timer.d != 5*time.Millisecond {
		t.Errorf("the queue's wait is %v, want half the 10 ms service time", timer.d)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("with the queue full: %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	s.done(s.now())
	<-served
	if w := <-queued; w.Code != http.StatusOK {
		t.Errorf("the queued request was answered %d, want 200", w.Code)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The queued request took the freed slot and has ended since.
	if s.inflight != 3 || len(s.queue) != 0 {
		t.Errorf("in flight %d, queued %d; want 3, 0", s.inflight, len(s.queue))
	}
}

// TestShedQueueWaitIsBounded: a queued request that gets no slot within
// its wait leaves the queue and is refused with a Retry-After, its place in
// the queue of refusals; the queue's room is free for the next.
func TestShedQueueWaitIsBounded(t *testing.T) {
	s, timers := queuedShedder(t)
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a request got no slot, yet ran") }))
	queued := serveAsync(h)
	(<-timers.started).fire <- time.Time{}
	w := <-queued
	// 10 ms over 4 slots: the first refusal's place is 2.5 ms away.
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || w.Header().Get("Retry-After-Ms") != "3" {
		t.Errorf("after its wait: %d, Retry-After %q, -Ms %q; want 503, 1, 3", w.Code,
			w.Header().Get("Retry-After"), w.Header().Get("Retry-After-Ms"))
	}
	if _, q, ok := s.admit(); ok || q == nil {
		t.Errorf("admit() = %v, %v after the wait ended; want a place in the queue", q, ok)
	}
}

// TestShedQueueLeavesWithTheClient: a queued request whose client went
// away leaves the queue without waiting for its timer.
func TestShedQueueLeavesWithTheClient(t *testing.T) {
	s, timers := queuedShedder(t)
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a request got no slot, yet ran") }))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil).WithContext(ctx)) })
	<-timers.started
	cancel()
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) != 0 || s.inflight != 4 {
		t.Errorf("queued %d, in flight %d; want 0, 4", len(s.queue), s.inflight)
	}
}

// TestShedQueueWaitsForAMeasure: before any request has ended there is no
// measured service time to bound a wait by, so a full server refuses at
// once.
func TestShedQueueWaitsForAMeasure(t *testing.T) {
	s, _ := queuedShedder(t)
	s.measured = false
	if _, q, ok := s.admit(); ok || q != nil {
		t.Errorf("admit() = %v, %v before a measure; want refused", q, ok)
	}
}

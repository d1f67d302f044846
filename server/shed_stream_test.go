package idemsrv

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestShedReleasesAStartedStream: under WithMaxInFlight(1), a stream holds
// the slot until its headers go out, then gives it back: a plain request
// is served while the stream stays open for ten minutes, and the stream's
// life does not enter the service time that Retry-After is spread over
// (only its 2 ms to start does).
func TestShedReleasesAStartedStream(t *testing.T) {
	var mu sync.Mutex
	clock := time.Unix(1_700_000_000, 0)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	e := newTestEngine(t, WithMaxInFlight(1), WithMaxQueued(0), WithClock(now), WithStreamKeepAlive(0))
	watch := Route{Op: &idemrt.Operation{ID: "watch", Method: "GET", Path: "/watch"}, Stream: sseFormat}
	started, release := make(chan struct{}), make(chan struct{})
	handle(t, e, watch, func(w http.ResponseWriter, r *http.Request) {
		ServeStream(e, w, r, &watch, 200, func(s *Stream[note]) error {
			if e.shed.inflight != 1 {
				t.Errorf("before its start the stream holds %d slots, want 1", e.shed.inflight)
			}
			advance(2 * time.Millisecond)
			if err := s.Start(); err != nil {
				return err
			}
			close(started)
			<-release
			advance(10 * time.Minute)
			return s.Send(note{N: 1})
		})
	})
	handle(t, e, Route{Op: &idemrt.Operation{ID: "ping", Method: "GET", Path: "/ping"}}, func(http.ResponseWriter, *http.Request) {})
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Root().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/watch", nil))
	}()
	<-started
	w := httptest.NewRecorder()
	e.Root().ServeHTTP(w, httptest.NewRequest("GET", "/ping", nil))
	if w.Code != http.StatusOK {
		t.Errorf("a plain request beside an open stream got %d, want 200", w.Code)
	}
	close(release)
	<-done
	e.shed.mu.Lock()
	defer e.shed.mu.Unlock()
	if e.shed.inflight != 0 || len(e.shed.held) != 0 {
		t.Errorf("after both ended: %d in flight, %d held, want none", e.shed.inflight, len(e.shed.held))
	}
	if e.shed.service >= initialService {
		t.Errorf("service time %v after a 2 ms start and a 10-minute stream, want under the initial %v", e.shed.service, initialService)
	}
}

func handle(t *testing.T, e *Engine, rt Route, serve http.HandlerFunc) {
	t.Helper()
	if err := e.Handle(rt, serve); err != nil {
		t.Fatal(err)
	}
}

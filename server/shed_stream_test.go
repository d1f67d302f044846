package idemsrv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/server/internal/shed"
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
			if inflight, _, _ := e.shed.Load(); inflight != 1 {
				t.Errorf("before its start the stream holds %d slots, want 1", inflight)
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
	inflight, held, service := e.shed.Load()
	if inflight != 0 || held != 0 {
		t.Errorf("after both ended: %d in flight, %d held, want none", inflight, held)
	}
	if service >= shed.InitialService {
		t.Errorf("service time %v after a 2 ms start and a 10-minute stream, want under the initial %v", service, shed.InitialService)
	}
}

func handle(t *testing.T, e *Engine, rt Route, serve http.HandlerFunc) {
	t.Helper()
	if err := e.Handle(rt, serve); err != nil {
		t.Fatal(err)
	}
}

// blockingReader gives one byte, says so on reading, then waits for
// release before the end.
type blockingReader struct {
	reading, release chan struct{}
	sent             bool
}

func (b *blockingReader) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		close(b.reading)
		p[0] = 'x'
		return 1, nil
	}
	<-b.release
	return 0, io.EOF
}

// TestShedReleasesADownload: a download gives back its slot before its
// content goes out, so a slow client taking a large file does not keep a
// plain request out under WithMaxInFlight(1).
func TestShedReleasesADownload(t *testing.T) {
	e := newTestEngine(t, WithMaxInFlight(1), WithMaxQueued(0))
	body := &blockingReader{reading: make(chan struct{}), release: make(chan struct{})}
	handle(t, e, Route{Op: &idemrt.Operation{ID: "file", Method: "GET", Path: "/file"}}, func(w http.ResponseWriter, r *http.Request) {
		e.WriteDownload(w, r, 200, "application/pdf", &Download{Content: body})
	})
	handle(t, e, Route{Op: &idemrt.Operation{ID: "ping", Method: "GET", Path: "/ping"}}, func(http.ResponseWriter, *http.Request) {})
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Root().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/file", nil))
	}()
	<-body.reading
	w := httptest.NewRecorder()
	e.Root().ServeHTTP(w, httptest.NewRequest("GET", "/ping", nil))
	if w.Code != http.StatusOK {
		t.Errorf("a plain request beside a download in progress got %d, want 200", w.Code)
	}
	close(body.release)
	<-done
	if inflight, _, _ := e.shed.Load(); inflight != 0 {
		t.Errorf("%d in flight after both ended, want none", inflight)
	}
}

// valueWriter is a ResponseWriter passed by value that holds a map, as a
// middleware's may: it cannot be a map key.
type valueWriter struct {
	http.ResponseWriter
	notes map[string]string
}

// TestShedTakesAWriterPassedByValue: a response writer that is not a
// pointer is served, its slot held to the end, instead of panicking as a
// map key.
func TestShedTakesAWriterPassedByValue(t *testing.T) {
	e := newTestEngine(t, WithMaxInFlight(1))
	handle(t, e, Route{Op: &idemrt.Operation{ID: "ping", Method: "GET", Path: "/ping"}}, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	})
	rec := httptest.NewRecorder()
	e.Root().ServeHTTP(valueWriter{ResponseWriter: rec, notes: map[string]string{}}, httptest.NewRequest("GET", "/ping", nil))
	if inflight, _, _ := e.shed.Load(); rec.Code != http.StatusAccepted || inflight != 0 {
		t.Errorf("status %d, %d in flight; want 202 and none", rec.Code, inflight)
	}
}

// TestShedQueueIsAQuarterByDefault: WithMaxInFlight queues a quarter of its
// slots for a slot; WithMaxQueued(0) refuses at once always.
func TestShedQueueIsAQuarterByDefault(t *testing.T) {
	e, _ := New(nil, WithMaxInFlight(8))
	if n := e.shed.MaxQueued(); n != 2 {
		t.Errorf("WithMaxInFlight(8) queues %d, want 2 (a quarter)", n)
	}
	e, _ = New(nil, WithMaxInFlight(8), WithMaxQueued(0))
	if n := e.shed.MaxQueued(); n != 0 {
		t.Errorf("WithMaxQueued(0) queues %d, want 0", n)
	}
}

package idemsrv

import (
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// keepAliveTimers is a fake clock and timer for the stream keep-alive: each
// timer the keep-alive starts is announced on asked, and fire advances the
// clock by the timer's duration and fires it.
type keepAliveTimers struct {
	mu     sync.Mutex
	now    time.Time
	asked  chan time.Duration
	fired  chan time.Time
	starts int
}

func newKeepAliveTimers() *keepAliveTimers {
	return &keepAliveTimers{now: time.Unix(1_700_000_000, 0), asked: make(chan time.Duration, 1), fired: make(chan time.Time)}
}

func (k *keepAliveTimers) clock() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.now
}

func (k *keepAliveTimers) advance(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.now = k.now.Add(d)
}

func (k *keepAliveTimers) after(d time.Duration) (<-chan time.Time, func() bool) {
	k.mu.Lock()
	k.starts++
	k.mu.Unlock()
	k.asked <- d
	return k.fired, func() bool { return true }
}

// fire lets the pending timer go off after checking it was set for want;
// the clock moves on by passed first (want, less what the test already
// moved it while the timer ran).
func (k *keepAliveTimers) fire(t *testing.T, want, passed time.Duration) {
	t.Helper()
	if d := <-k.asked; d != want {
		t.Fatalf("the keep-alive waits %v, want %v", d, want)
	}
	k.advance(passed)
	k.fired <- k.clock()
}

func keepAliveEngine(t *testing.T, k *keepAliveTimers, opts ...Option) *Engine {
	e := newTestEngine(t, append([]Option{WithClock(k.clock)}, opts...)...)
	e.cfg.after = k.after
	return e
}

// TestStreamKeepAliveFillsASilence: a started SSE stream that is quiet for
// the keep-alive interval gets a comment, which clients skip and idle
// timeouts count as traffic; one that sent an event lately waits for the
// rest of the interval; nothing is written after the handler returns.
func TestStreamKeepAliveFillsASilence(t *testing.T) {
	k := newKeepAliveTimers()
	e := keepAliveEngine(t, k, WithStreamKeepAlive(15*time.Second))
	step := make(chan string)
	var w *httptest.ResponseRecorder
	done := make(chan struct{})
	go func() {
		defer close(done)
		w = serveStream(t, e, sseFormat, nil, func(s *Stream[note]) error {
			if err := s.Start(); err != nil {
				return err
			}
			step <- "started"
			<-step
			return s.Send(note{N: 1})
		})
	}()
	<-step
	k.fire(t, 15*time.Second, 15*time.Second) // quiet since Start: a keep-alive
	// The keep-alive asks for its next timer after writing.
	if d := <-k.asked; d != 15*time.Second {
		t.Fatalf("after a keep-alive the next waits %v, want 15s", d)
	}
	k.advance(10 * time.Second)
	step <- "send"
	<-done
	want := ": keep-alive\n\ndata: {\"n\":1}\n\n"
	if got := w.Body.String(); got != want {
		t.Errorf("body %q, want %q", got, want)
	}
}

// TestStreamKeepAliveWaitsOutARecentEvent: a timer that goes off 5 s after
// an event writes nothing and waits the 10 s left.
func TestStreamKeepAliveWaitsOutARecentEvent(t *testing.T) {
	k := newKeepAliveTimers()
	e := keepAliveEngine(t, k, WithStreamKeepAlive(15*time.Second))
	step := make(chan struct{})
	var w *httptest.ResponseRecorder
	done := make(chan struct{})
	go func() {
		defer close(done)
		w = serveStream(t, e, sseFormat, nil, func(s *Stream[note]) error {
			k.advance(10 * time.Second)
			if err := s.Send(note{N: 1}); err != nil {
				return err
			}
			step <- struct{}{}
			<-step
			return nil
		})
	}()
	<-step
	k.fire(t, 15*time.Second, 5*time.Second) // the handler's 10 s, then 5 more
	if d := <-k.asked; d != 10*time.Second {
		t.Errorf("5 s after an event the keep-alive waits %v, want 10s", d)
	}
	step <- struct{}{}
	<-done
	if got, want := w.Body.String(), "data: {\"n\":1}\n\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
}

// TestStreamKeepAliveByFraming: a quiet JSON text sequence gets a lone RS,
// which its readers skip; JSON Lines, which has no such thing, and a server
// built WithStreamKeepAlive(0) start no keep-alive at all.
func TestStreamKeepAliveByFraming(t *testing.T) {
	seq := &StreamFormat{Framing: idemrt.FramingJSONSeq, MediaType: "application/json-seq"}
	k := newKeepAliveTimers()
	e := keepAliveEngine(t, k, WithStreamKeepAlive(time.Second))
	step := make(chan struct{})
	var w *httptest.ResponseRecorder
	done := make(chan struct{})
	go func() {
		defer close(done)
		w = serveStream(t, e, seq, nil, func(s *Stream[note]) error {
			if err := s.Send(note{N: 1}); err != nil {
				return err
			}
			step <- struct{}{}
			<-step
			return s.Send(note{N: 2})
		})
	}()
	<-step
	k.fire(t, time.Second, time.Second)
	<-k.asked
	step <- struct{}{}
	<-done
	if got, want := w.Body.String(), "\x1e{\"n\":1}\n\x1e\x1e{\"n\":2}\n"; got != want {
		t.Errorf("json-seq body %q, want %q", got, want)
	}
	cases := []struct {
		name string
		f    *StreamFormat
		opts []Option
	}{
		{"jsonl", &StreamFormat{Framing: idemrt.FramingJSONLines, MediaType: "application/jsonl"}, nil},
		{"sse, off", sseFormat, []Option{WithStreamKeepAlive(0)}},
	}
	for _, c := range cases {
		k := newKeepAliveTimers()
		e := keepAliveEngine(t, k, c.opts...)
		serveStream(t, e, c.f, nil, func(s *Stream[note]) error { return s.Send(note{N: 1}) })
		if k.starts != 0 {
			t.Errorf("%s: %d keep-alive timers started, want none", c.name, k.starts)
		}
	}
}

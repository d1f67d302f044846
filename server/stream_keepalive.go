package idemsrv

import (
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// defaultKeepAlive is the default WithStreamKeepAlive: half the generated
// client's interactive idle timeout (30s), and under the 60 seconds after
// which common proxies and load balancers drop an idle connection.
const defaultKeepAlive = 15 * time.Second

// keepAliveFrames are what a quiet stream is sent, by framing: bytes on the
// wire, which is what idle timeouts (the generated client's included)
// watch, that every reader skips. SSE has comments; in a JSON text sequence
// consecutive RS bytes are no element and may be ignored (RFC 7464, 2.1).
// JSON Lines has neither: a blank line breaks readers that parse every
// line, so it gets none.
var keepAliveFrames = map[idemrt.Framing][]byte{
	idemrt.FramingSSE:     []byte(": keep-alive\n\n"),
	idemrt.FramingJSONSeq: []byte("\x1e"),
}

// WithStreamKeepAlive sends a keep-alive on a stream that has been quiet
// for d (default 15s; 0 sends none), so a handler that waits longer than
// that between events keeps its stream: the generated client cuts a stream
// silent past its idle timeout (30s by default), and proxies drop idle
// connections. It is a comment in text/event-stream and a lone RS in a JSON
// text sequence, which readers skip, sent only after the status and headers
// (the first event, or Start). JSON Lines has no such thing and gets none:
// a handler quiet for long there should send events of its own.
func WithStreamKeepAlive(d time.Duration) Option {
	return func(c *config) { c.keepAlive = max(d, 0) }
}

// realTimer is the keep-alive's timer; tests replace config.after.
func realTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// keepAlive writes the framing's keep-alive whenever the started stream has written
// nothing for d, until stop is closed or the stream breaks; done is closed
// when it returns, after which it never writes.
func (s *Stream[T]) keepAlive(d time.Duration, after func(time.Duration) (<-chan time.Time, func() bool),
	stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	wait := d
	for {
		fired, cancel := after(wait)
		select {
		case <-stop:
			cancel()
			return
		case <-s.ctx.Done():
			cancel()
			return
		case <-fired:
		}
		var ok bool
		if wait, ok = s.keepAliveDue(d); !ok {
			return
		}
	}
}

// keepAliveDue writes the keep-alive if the stream has been quiet for d,
// and returns how long until the next one may be due; false once the
// stream is broken.
func (s *Stream[T]) keepAliveDue(d time.Duration) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, false
	}
	if !s.started {
		return d, true
	}
	if quiet := s.now().Sub(s.lastWrite); quiet < d {
		return d - quiet, true
	}
	return d, s.writeLocked(keepAliveFrames[s.format.Framing]) == nil
}

// startKeepAlive starts keepAlive when the server sends keep-alives and
// the stream's framing has one, and returns the function that stops it and
// waits for it to end (the response writer must not be touched after the
// handler returns).
func (s *Stream[T]) startKeepAlive(cfg *config) func() {
	if cfg.keepAlive <= 0 || keepAliveFrames[s.format.Framing] == nil {
		return func() {}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go s.keepAlive(cfg.keepAlive, cfg.after, stop, done)
	return func() { close(stop); <-done }
}

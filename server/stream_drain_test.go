package idemsrv

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestStreamDrainCutsAStartedStream: when the server drains, a started
// stream's Context ends with ErrDraining, Send returns it, and the answer
// is cut (http.ErrAbortHandler), not ended, so the client resumes it.
func TestStreamDrainCutsAStartedStream(t *testing.T) {
	drain, stop := context.WithCancel(context.Background())
	e := newTestEngine(t, WithStreamDrain(drain), WithStreamKeepAlive(0))
	var sendErr, cause error
	cut := func() (p any) {
		defer func() { p = recover() }()
		serveStream(t, e, sseFormat, nil, func(s *Stream[note]) error {
			if err := s.Send(note{N: 1}); err != nil {
				return err
			}
			stop()
			<-s.Context().Done()
			cause = context.Cause(s.Context())
			sendErr = s.Send(note{N: 2})
			return sendErr
		})
		return nil
	}()
	if cut != http.ErrAbortHandler {
		t.Errorf("the drained stream ended with %v, want the connection cut (http.ErrAbortHandler)", cut)
	}
	if !errors.Is(cause, ErrDraining) || !errors.Is(sendErr, ErrDraining) {
		t.Errorf("cause %v, Send %v; want ErrDraining for both", cause, sendErr)
	}
}

// TestStreamDrainRefusesANewStream: once the server drains, a stream
// request gets 503 with Retry-After and its handler never runs.
func TestStreamDrainRefusesANewStream(t *testing.T) {
	drain, stop := context.WithCancel(context.Background())
	stop()
	e := newTestEngine(t, WithStreamDrain(drain))
	ran := false
	w := serveStream(t, e, sseFormat, nil, func(s *Stream[note]) error { ran = true; return nil })
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || ran {
		t.Errorf("status %d, Retry-After %q, handler ran %v; want 503, 1, false", w.Code, w.Header().Get("Retry-After"), ran)
	}
}

// TestStreamDrainBeforeStart: a stream that has not started when the
// server drains is answered 503 instead of the handler's status.
func TestStreamDrainBeforeStart(t *testing.T) {
	drain, stop := context.WithCancel(context.Background())
	e := newTestEngine(t, WithStreamDrain(drain))
	w := serveStream(t, e, sseFormat, httptest.NewRequest("GET", "/watch", nil), func(s *Stream[note]) error {
		stop()
		<-s.Context().Done()
		return s.Context().Err()
	})
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("status %d, Retry-After %q; want 503 and 1", w.Code, w.Header().Get("Retry-After"))
	}
}

package idemsrv

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
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

// endless is a download's content that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestDrainCutsADownload: a download going out to a client that stopped
// reading is cut when the server drains, so Shutdown is not held up by it.
func TestDrainCutsADownload(t *testing.T) {
	drain, stop := context.WithCancel(context.Background())
	e := newTestEngine(t, WithStreamDrain(drain))
	returned := make(chan struct{})
	handle(t, e, Route{Op: &idemrt.Operation{ID: "file", Method: "GET", Path: "/file"}}, func(w http.ResponseWriter, r *http.Request) {
		defer close(returned)
		e.WriteDownload(w, r, 200, "application/octet-stream", &Download{Content: endless{}})
	})
	ts := httptest.NewServer(e.Root())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/file")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stop()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the download was still going out 10 s after the drain")
	}
}

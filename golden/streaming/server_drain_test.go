package streaming_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/streaming"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// openStream serves h with opts on 127.0.0.1 and opens WatchEvents, having
// read its first event; it returns the http.Server to shut down.
func openStream(t *testing.T, h *quietFeed, opts ...idemsrv.Option) (*httptest.Server, *idemrt.Stream[streaming.Event]) {
	t.Helper()
	srv, err := streaming.NewServer(h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.Start()
	t.Cleanup(ts.Close)
	c, err := streaming.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if !s.Next() {
		t.Fatalf("no first event: %v", s.Err())
	}
	return ts, s
}

// TestServerDrainLetsShutdownFinish: http.Server.Shutdown waits for open
// requests, so a stream that would run for an hour holds it up; wired to
// RegisterOnShutdown, WithStreamDrain ends the stream (its handler's
// context is cancelled with ErrDraining) and Shutdown returns at once. The
// control, without it, is still waiting when its deadline ends.
func TestServerDrainLetsShutdownFinish(t *testing.T) {
	drain, stop := context.WithCancel(context.Background())
	h := &quietFeed{pause: time.Hour, ended: make(chan error, 1)}
	ts, _ := openStream(t, h, idemsrv.WithStreamDrain(drain))
	ts.Config.RegisterOnShutdown(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	began := time.Now()
	if err := ts.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with the drain: %v after %v", err, time.Since(began))
	}
	if err := <-h.ended; !errors.Is(err, idemsrv.ErrDraining) {
		t.Errorf("the handler's context ended with %v, want ErrDraining", err)
	}

	control := &quietFeed{pause: time.Hour, ended: make(chan error, 1)}
	ts, _ = openStream(t, control)
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := ts.Config.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown without the drain: %v, want it still waiting at its deadline", err)
	}
}

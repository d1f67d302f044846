package streaming_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/streaming"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// quietFeed sends one event, stays silent for pause, then sends another;
// opens counts the streams it was asked for, and ended, when set, receives
// the cause of a context that ended the pause.
type quietFeed struct {
	streaming.Handler
	pause time.Duration
	opens atomic.Int32
	ended chan error
}

func (q *quietFeed) WatchEvents(ctx context.Context, _ streaming.WatchEventsParams, s *idemsrv.Stream[streaming.Event]) error {
	q.opens.Add(1)
	if s.LastEventID() == "" {
		if err := s.SendEvent(idemsrv.EventFields{ID: "1"}, streaming.Event{ID: "e1"}); err != nil {
			return err
		}
	}
	select {
	case <-time.After(q.pause):
	case <-ctx.Done():
		if q.ended != nil {
			q.ended <- context.Cause(ctx)
		}
		return ctx.Err()
	}
	return s.SendEvent(idemsrv.EventFields{ID: "2"}, streaming.Event{ID: "e2"})
}

// ExportRecordSequence is the same in a JSON text sequence, which has no
// event ids: a cut stream cannot resume.
func (q *quietFeed) ExportRecordSequence(ctx context.Context, s *idemsrv.Stream[streaming.Record]) error {
	q.opens.Add(1)
	if err := s.Send(streaming.Record{ID: 1}); err != nil {
		return err
	}
	select {
	case <-time.After(q.pause):
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Send(streaming.Record{ID: 2})
}

// watchQuietly reads a stream from a server built with opts whose handler
// is silent for 900 ms between its two events, through a generated client
// that cuts a stream silent for 400 ms; it returns the events read and how
// many streams the handler opened.
func watchQuietly(t *testing.T, opts ...idemsrv.Option) ([]streaming.Event, int32) {
	t.Helper()
	h := &quietFeed{pause: 900 * time.Millisecond}
	srv, err := streaming.NewServer(h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := streaming.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{}, idemrt.WithIdleTimeout(400*time.Millisecond))
	return drain(t, s, err), h.opens.Load()
}

// TestServerKeepAliveHoldsAQuietStream: both ends from one document agree
// on a handler slower than the client's idle timeout. With the server's
// keep-alive (every 20 ms here), the client reads both events over one
// stream; without it (the control), the client finds the stream silent,
// cuts it and resumes with Last-Event-ID, so the handler runs twice.
func TestServerKeepAliveHoldsAQuietStream(t *testing.T) {
	if testing.Short() {
		t.Skip("1.8 s of real silence")
	}
	got, opens := watchQuietly(t, idemsrv.WithStreamKeepAlive(20*time.Millisecond))
	if len(got) != 2 || got[0].ID != "e1" || got[1].ID != "e2" || opens != 1 {
		t.Errorf("with keep-alives: events %+v over %d streams, want e1, e2 over 1", got, opens)
	}
	got, opens = watchQuietly(t, idemsrv.WithStreamKeepAlive(0))
	if len(got) != 2 || opens != 2 {
		t.Errorf("without keep-alives: events %+v over %d streams, want 2 over 2 (a cut and a resume)", got, opens)
	}
}

// TestServerKeepAliveHoldsAQuietSequence: the same judge for a JSON text
// sequence, whose keep-alive is a lone RS: with it the generated client
// reads both records over one stream; without it (the control) the client
// cuts the silent stream, which cannot resume (no ids), and the call fails.
func TestServerKeepAliveHoldsAQuietSequence(t *testing.T) {
	if testing.Short() {
		t.Skip("1.8 s of real silence")
	}
	read := func(opts ...idemsrv.Option) ([]int64, error) {
		h := &quietFeed{pause: 900 * time.Millisecond}
		srv, err := streaming.NewServer(h, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		c, err := streaming.NewClient(ts.URL)
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.ExportRecordSequence(context.Background(), idemrt.WithIdleTimeout(400*time.Millisecond))
		if err != nil {
			return nil, err
		}
		defer s.Close()
		var ids []int64
		for s.Next() {
			ids = append(ids, s.Current().ID)
		}
		return ids, s.Err()
	}
	if ids, err := read(idemsrv.WithStreamKeepAlive(20 * time.Millisecond)); err != nil || len(ids) != 2 {
		t.Errorf("with keep-alives: records %v, %v; want 1 and 2", ids, err)
	}
	if ids, err := read(idemsrv.WithStreamKeepAlive(0)); err == nil {
		t.Errorf("without keep-alives: records %v and no error; want the silent stream cut", ids)
	}
}

package idemsrv

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

type note struct {
	N    int    `json:"n"`
	Text string `json:"text,omitempty"`
}

var sseFormat = &StreamFormat{Framing: idemrt.FramingSSE, MediaType: "text/event-stream"}

// serveStream runs serve as a stream operation answering 200 in format f,
// with route rt (a plain one when nil), and returns what was written.
func serveStream[T any](t *testing.T, e *Engine, f *StreamFormat, req *http.Request, serve func(*Stream[T]) error) *httptest.ResponseRecorder {
	t.Helper()
	rt := &Route{Op: &idemrt.Operation{ID: "watch"}, Stream: f, Declared: idemrt.StatusSet{Codes: []int{404}}}
	if req == nil {
		req = httptest.NewRequest("GET", "/watch", nil)
	}
	w := httptest.NewRecorder()
	ServeStream(e, w, req, rt, 200, serve)
	return w
}

func newTestEngine(t *testing.T, opts ...Option) *Engine {
	t.Helper()
	e, err := New(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestStreamSSEFields(t *testing.T) {
	w := serveStream(t, newTestEngine(t), sseFormat, nil, func(s *Stream[note]) error {
		if err := s.Send(note{N: 1}); err != nil {
			return err
		}
		return s.SendEvent(EventFields{ID: "2", Type: "update", Retry: 1500 * time.Millisecond}, note{N: 2, Text: "two"})
	})
	want := "data: {\"n\":1}\n\nevent: update\nid: 2\nretry: 1500\ndata: {\"n\":2,\"text\":\"two\"}\n\n"
	if got := w.Body.String(); got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
	if ct, cc := w.Header().Get("Content-Type"), w.Header().Get("Cache-Control"); ct != "text/event-stream" || cc != "no-cache" {
		t.Errorf("Content-Type %q, Cache-Control %q", ct, cc)
	}
	if w.Code != 200 || !w.Flushed {
		t.Errorf("status %d, flushed %v", w.Code, w.Flushed)
	}
}

// TestStreamSSEHostileData: line breaks of every kind in an event's data
// become data lines of that one event, so a value cannot add a field or
// end its event early.
func TestStreamSSEHostileData(t *testing.T) {
	w := serveStream(t, newTestEngine(t), sseFormat, nil, func(s *Stream[string]) error {
		return s.Send("a\r\nevent: evil\nid: 9\r\rdata: x\n")
	})
	want := "data: a\ndata: event: evil\ndata: id: 9\ndata: \ndata: data: x\ndata: \n\n"
	if got := w.Body.String(); got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

// TestStreamSSEHostileFields: an id or type holding a line break (or NUL,
// which makes clients ignore an id) is refused and nothing is written.
func TestStreamSSEHostileFields(t *testing.T) {
	for _, f := range []EventFields{{ID: "1\nevent: evil"}, {ID: "1\r"}, {ID: "a\x00"}, {Type: "x\ndata: y"}} {
		var sendErr error
		w := serveStream(t, newTestEngine(t), sseFormat, nil, func(s *Stream[string]) error {
			sendErr = s.SendEvent(f, "ok")
			return nil
		})
		if !errors.Is(sendErr, ErrBadEventField) {
			t.Errorf("%+v: Send = %v, want ErrBadEventField", f, sendErr)
		}
		if w.Body.Len() != 0 {
			t.Errorf("%+v: wrote %q", f, w.Body.String())
		}
	}
}

func TestStreamJSONFramings(t *testing.T) {
	cases := []struct {
		f    *StreamFormat
		want string
	}{
		{&StreamFormat{Framing: idemrt.FramingJSONLines, MediaType: "application/x-ndjson"}, "{\"n\":1}\n{\"n\":2,\"text\":\"a\\nb\"}\n"},
		{&StreamFormat{Framing: idemrt.FramingJSONSeq, MediaType: "application/json-seq"}, "\x1e{\"n\":1}\n\x1e{\"n\":2,\"text\":\"a\\nb\"}\n"},
	}
	for _, c := range cases {
		w := serveStream(t, newTestEngine(t), c.f, nil, func(s *Stream[note]) error {
			if err := s.Send(note{N: 1}); err != nil {
				return err
			}
			return s.Send(note{N: 2, Text: "a\nb"})
		})
		if got := w.Body.String(); got != c.want {
			t.Errorf("%s: body = %q, want %q", c.f.MediaType, got, c.want)
		}
		if ct := w.Header().Get("Content-Type"); ct != c.f.MediaType {
			t.Errorf("Content-Type %q", ct)
		}
	}
}

// TestStreamRawDelimiter: a raw (string) event holding its framing's
// delimiter would split in two on the client; it is refused.
func TestStreamRawDelimiter(t *testing.T) {
	cases := map[idemrt.Framing]string{idemrt.FramingJSONLines: "a\nb", idemrt.FramingJSONSeq: "a\x1eb"}
	for f, v := range cases {
		var sendErr error
		w := serveStream(t, newTestEngine(t), &StreamFormat{Framing: f, MediaType: "x"}, nil, func(s *Stream[string]) error {
			sendErr = s.Send(v)
			return nil
		})
		if !errors.Is(sendErr, ErrUnframable) || w.Body.Len() != 0 {
			t.Errorf("framing %d: Send = %v, body %q", f, sendErr, w.Body.String())
		}
	}
}

func TestStreamFieldsNeedSSE(t *testing.T) {
	var sendErr error
	serveStream(t, newTestEngine(t), &StreamFormat{Framing: idemrt.FramingJSONLines, MediaType: "application/jsonl"}, nil,
		func(s *Stream[note]) error {
			sendErr = s.SendEvent(EventFields{ID: "1"}, note{})
			return nil
		})
	if !errors.Is(sendErr, ErrNotEventStream) {
		t.Errorf("Send = %v, want ErrNotEventStream", sendErr)
	}
}

// TestStreamErrorBeforeFirstEvent: a declared status returned before any
// event is the answer, as for a plain operation.
func TestStreamErrorBeforeFirstEvent(t *testing.T) {
	w := serveStream(t, newTestEngine(t), sseFormat, nil, func(s *Stream[note]) error {
		return &idemrt.StatusError{StatusCode: 404, Model: note{Text: "no such topic"}}
	})
	if w.Code != 404 || w.Body.String() != `{"n":0,"text":"no such topic"}` {
		t.Errorf("status %d, body %q", w.Code, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
}

// TestStreamErrorAfterFirstEvent: once events were sent the status cannot
// change, and a clean end would tell the client the stream is complete, so
// the response is aborted (the client sees a cut and may resume).
func TestStreamErrorAfterFirstEvent(t *testing.T) {
	var logged error
	e := newTestEngine(t, WithOnError(func(_ *http.Request, err error) { logged = err }))
	boom := errors.New("database gone")
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", p)
		}
		if logged != boom {
			t.Errorf("OnError got %v", logged)
		}
	}()
	serveStream(t, e, sseFormat, nil, func(s *Stream[note]) error {
		if err := s.Send(note{N: 1}); err != nil {
			return err
		}
		return boom
	})
	t.Error("ServeStream returned normally")
}

// TestStreamEmpty: a handler that sends nothing and returns nil answers an
// empty stream.
func TestStreamEmpty(t *testing.T) {
	w := serveStream(t, newTestEngine(t), sseFormat, nil, func(s *Stream[note]) error { return nil })
	if w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("status %d, body %q, header %v", w.Code, w.Body.String(), w.Header())
	}
}

// TestStreamStart: Start sends the status and headers before any event, so
// a client is not left waiting for them while the handler waits for news.
func TestStreamStart(t *testing.T) {
	var flushedEarly bool
	w := serveStream(t, newTestEngine(t), sseFormat, nil, func(s *Stream[note]) error {
		err := s.Start()
		flushedEarly = true
		return err
	})
	if !flushedEarly || !w.Flushed || w.Code != 200 {
		t.Errorf("flushed %v, status %d", w.Flushed, w.Code)
	}
}

func TestStreamLastEventID(t *testing.T) {
	req := httptest.NewRequest("GET", "/watch", nil)
	req.Header.Set("Last-Event-ID", "41")
	var got string
	serveStream(t, newTestEngine(t), sseFormat, req, func(s *Stream[note]) error {
		got = s.LastEventID()
		return nil
	})
	if got != "41" {
		t.Errorf("LastEventID = %q, want 41", got)
	}
}

// TestStreamClientGone: once the client went away Send reports it (the
// request's context error) and writes nothing, so a handler's loop ends.
func TestStreamClientGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", "/watch", nil).WithContext(ctx)
	var sendErr error
	w := serveStream(t, newTestEngine(t), sseFormat, req, func(s *Stream[note]) error {
		sendErr = s.Send(note{N: 1})
		return sendErr
	})
	if !errors.Is(sendErr, context.Canceled) || w.Body.Len() != 0 {
		t.Errorf("Send = %v, body %q", sendErr, w.Body.String())
	}
}

// deadlineRecorder is a ResponseWriter whose connection takes write
// deadlines (http.ResponseController finds SetWriteDeadline).
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.deadlines = append(d.deadlines, t)
	return nil
}

// TestStreamWriteDeadline: every event is written under a deadline of the
// stream write timeout, so a client that stops reading releases the
// handler; the deadline is cleared when the stream ends (the connection may
// serve another request).
func TestStreamWriteDeadline(t *testing.T) {
	e := newTestEngine(t, WithStreamWriteTimeout(5*time.Second))
	w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	rt := &Route{Op: &idemrt.Operation{ID: "watch"}, Stream: sseFormat}
	before := time.Now()
	ServeStream(e, w, httptest.NewRequest("GET", "/watch", nil), rt, 200, func(s *Stream[note]) error {
		for i := range 2 {
			if err := s.Send(note{N: i}); err != nil {
				return err
			}
		}
		return nil
	})
	after := time.Now()
	if len(w.deadlines) != 3 {
		t.Fatalf("deadlines %v, want one per event and a reset", w.deadlines)
	}
	for _, d := range w.deadlines[:2] {
		if d.Before(before.Add(5*time.Second)) || d.After(after.Add(5*time.Second)) {
			t.Errorf("deadline %v not 5s after the write", d)
		}
	}
	if !w.deadlines[2].IsZero() {
		t.Errorf("last deadline %v, want the zero time", w.deadlines[2])
	}
}

// TestStreamKeyRequired: a keyed stream operation is served outside the
// ledger, but its handler still gets one well-formed key or never runs.
func TestStreamKeyRequired(t *testing.T) {
	e := newTestEngine(t, WithoutLedger())
	rt := Route{Op: &idemrt.Operation{ID: "runJob", Method: "POST", Path: "/jobs", Safety: idemrt.Keyed, KeyHeader: "Idempotency-Key"}, Stream: sseFormat}
	ran := 0
	if err := e.Handle(rt, func(w http.ResponseWriter, r *http.Request) { ran++ }); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		keys   []string
		status int
		typ    string
	}{
		{nil, 400, "idempotency-key-missing"},
		{[]string{"a b"}, 400, "idempotency-key-invalid"},
		{[]string{"k1", "k2"}, 400, "idempotency-key-invalid"},
		{[]string{`"k1"`}, 200, ""},
	}
	for _, c := range cases {
		req := httptest.NewRequest("POST", "/jobs", nil)
		req.Header["Idempotency-Key"] = c.keys
		w := httptest.NewRecorder()
		e.Root().ServeHTTP(w, req)
		if w.Code != c.status || !strings.Contains(w.Body.String(), c.typ) {
			t.Errorf("keys %q: %d %s", c.keys, w.Code, w.Body.String())
		}
	}
	if ran != 1 {
		t.Errorf("the handler ran %d times, want 1", ran)
	}
}

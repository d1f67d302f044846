package runtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
)

// serveBody answers every request with contentType and body.
func serveBody(t *testing.T, contentType, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// collect reads a stream of T to its end.
func collect[T any](t *testing.T, srv *httptest.Server, f Framing) ([]T, error) {
	t.Helper()
	r, _ := loopRunner(t, quickPolicy())
	req := &Request{Method: "GET", URL: mustURL(t, srv.URL+"/events")}
	s, err := OpenStream[T](context.Background(), r, &streamGetOp, req, f)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []T
	for s.Next() {
		out = append(out, s.Current())
	}
	return out, s.Err()
}

// TestStreamJSONFramings: JSON lines and JSON text sequences decode typed
// events.
func TestStreamJSONFramings(t *testing.T) {
	lines := serveBody(t, "application/x-ndjson", "{\"N\":1}\n\n{\"N\":2}\r\n{\"N\":3}\n")
	if got, err := collect[delta](t, lines, FramingJSONLines); err != nil || !slices.Equal(got, []delta{{1}, {2}, {3}}) {
		t.Fatalf("jsonl: %v, %v", got, err)
	}
	seq := serveBody(t, "application/json-seq", "\x1e{\"N\":\n1}\n\x1e{\"N\":2}\n")
	if got, err := collect[delta](t, seq, FramingJSONSeq); err != nil || !slices.Equal(got, []delta{{1}, {2}}) {
		t.Fatalf("json-seq: %v, %v", got, err)
	}
}

// TestStreamRawAndDone: string events take the data raw, and [DONE] ends
// the stream cleanly (what follows it is never read).
func TestStreamRawAndDone(t *testing.T) {
	srv := serveBody(t, "text/event-stream", "data: a\n\nevent: error\ndata: b\n\ndata: [DONE]\n\ndata: c\n\n")
	if got, err := collect[string](t, srv, FramingSSE); err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestStreamDecodeError: an event that does not decode as T ends the
// stream with a *CallError (ErrDecode) that carries the key.
func TestStreamDecodeError(t *testing.T) {
	srv := serveBody(t, "text/event-stream", "data: {\"N\":1}\n\ndata: not json\n\n")
	got, err := collect[delta](t, srv, FramingSSE)
	var ce *CallError
	if !slices.Equal(got, []delta{{1}}) || !errors.Is(err, ErrDecode) || !errors.As(err, &ce) || KeyOf(err) == "" {
		t.Fatalf("%v, %v", got, err)
	}
}

// TestStreamEventTooLarge: an event above the client's limit ends the
// stream with ErrEventTooLarge.
func TestStreamEventTooLarge(t *testing.T) {
	srv := serveBody(t, "text/event-stream", "data: {\"N\":1}\n\ndata: \""+string(make([]byte, 200))+"\"\n\n")
	r, _ := loopRunner(t, quickPolicy(), WithMaxBody(100))
	req := &Request{Method: "GET", URL: mustURL(t, srv.URL+"/events")}
	s, err := OpenStream[delta](context.Background(), r, &streamGetOp, req, FramingSSE)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for s.Next() {
	}
	if !errors.Is(s.Err(), ErrEventTooLarge) || KeyOf(s.Err()) == "" {
		t.Fatalf("%v", s.Err())
	}
}

// TestStreamJSONLinesCutNotResumed: JSON lines carry no ids, so a safe
// stream cut after events cannot resume without delivering them twice: it
// ends with a *StreamCutError (not an unknown outcome), one connection.
func TestStreamJSONLinesCutNotResumed(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conns.Add(1)
		w.Header().Set("Content-Type", "application/jsonl")
		_, _ = w.Write([]byte("{\"N\":1}\n{\"N\":2}\n"))
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	got, err := collect[delta](t, srv, FramingJSONLines)
	var cut *StreamCutError
	if !slices.Equal(got, []delta{{1}, {2}}) || !errors.As(err, &cut) || !errors.Is(cut.Reason, errNoResumePoint) || errors.Is(err, ErrOutcomeUnknown) || conns.Load() != 1 {
		t.Fatalf("%v, %v, %d connections", got, err, conns.Load())
	}
}

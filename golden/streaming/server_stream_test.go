package streaming_test

// Behaviour tests of the generated streaming server: the generated client
// reads events from it over loopback, through a proxy that really drops
// the connection mid-stream, and resumes with Last-Event-ID; every framing
// arrives as sent; hostile text cannot add an SSE field or event; a keyed
// stream bypasses the ledger; a handler is released when its client leaves
// or stops reading. Hand-written; the golden test leaves files without the
// generated header alone.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/streaming"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
	idemsrv "github.com/idemgen/idemgen/server"
)

// feed is a streaming.Handler over a fixed log of events: each stream
// sends the events after the Last-Event-ID it was opened with, each with
// its position as id. The embedded Handler stands for the methods these
// tests do not call (the downloads).
type feed struct {
	streaming.Handler
	events []streaming.Event
	ticks  []string
	// job is RunJob's progress, sent the same way.
	job []streaming.JobProgress

	mu sync.Mutex
	// resumes are the Last-Event-IDs the SSE handlers were opened with;
	// keys the Idempotency-Keys RunJob saw.
	resumes []string
	keys    []string
	// failAfter, when set, makes the stream fail after the event of that
	// position is sent (once).
	failAfter int
	// prompts are the completion requests, in order.
	prompts []streaming.CompletionRequest
	// endless, when set, is WatchEvents' i-th event, for ever.
	endless func(i int) streaming.Event
	// done receives what each stream handler returned.
	done chan error
}

func (f *feed) opened(lastID, key string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resumes = append(f.resumes, lastID)
	if key != "" {
		f.keys = append(f.keys, key)
	}
	if lastID == "" {
		return 0, nil
	}
	return strconv.Atoi(lastID)
}

// sendAfter sends events[from:] with their positions (1-based) as ids.
func sendAfter[T any](f *feed, s *idemsrv.Stream[T], events []T, key string) error {
	from, err := f.opened(s.LastEventID(), key)
	if err != nil || from > len(events) {
		return &idemrt.StatusError{StatusCode: 400}
	}
	for i := from; i < len(events); i++ {
		if err := s.SendEvent(idemsrv.EventFields{ID: strconv.Itoa(i + 1)}, events[i]); err != nil {
			return err
		}
		if f.failNow(i + 1) {
			return errors.New("the feed broke")
		}
	}
	return nil
}

// failNow reports whether the stream fails after event n, once.
func (f *feed) failNow(n int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAfter == n {
		f.failAfter = 0
		return true
	}
	return false
}

// seen returns the Last-Event-IDs and keys the handlers were opened with.
func (f *feed) seen() (resumes, keys []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.resumes...), append([]string(nil), f.keys...)
}

func (f *feed) WatchEvents(_ context.Context, _ streaming.WatchEventsParams, s *idemsrv.Stream[streaming.Event]) error {
	if f.endless != nil {
		return sendForever(f, s)
	}
	return sendAfter(f, s, f.events, "")
}

// sendForever sends f.endless's events until Send fails, and reports
// Send's error on f.done.
func sendForever(f *feed, s *idemsrv.Stream[streaming.Event]) error {
	for i := 0; ; i++ {
		if err := s.Send(f.endless(i)); err != nil {
			f.done <- err
			return err
		}
	}
}

func (f *feed) WatchTicker(_ context.Context, s *idemsrv.Stream[string]) error {
	for _, t := range f.ticks {
		if err := s.Send(t); err != nil {
			return err
		}
	}
	return nil
}

func (f *feed) RunJob(_ context.Context, _ streaming.JobRequest, p streaming.RunJobParams, s *idemsrv.Stream[streaming.JobProgress]) error {
	return sendAfter(f, s, f.job, p.IdempotencyKey)
}

func (f *feed) records(s *idemsrv.Stream[streaming.Record]) error {
	for _, r := range sampleRecords() {
		if err := s.Send(r); err != nil {
			return err
		}
	}
	return nil
}

func (f *feed) ExportRecords(_ context.Context, s *idemsrv.Stream[streaming.Record]) error {
	return f.records(s)
}

func (f *feed) ExportRecordsNdjson(_ context.Context, s *idemsrv.Stream[streaming.Record]) error {
	return f.records(s)
}

func (f *feed) ExportRecordSequence(_ context.Context, s *idemsrv.Stream[streaming.Record]) error {
	return f.records(s)
}

func (f *feed) CreateCompletion(_ context.Context, body streaming.CompletionRequest) (*streaming.Completion, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, body)
	f.mu.Unlock()
	return &streaming.Completion{ID: "c1", Text: "hello world"}, nil
}

func (f *feed) CreateCompletionStream(_ context.Context, body streaming.CompletionRequest, s *idemsrv.Stream[streaming.CompletionChunk]) error {
	f.mu.Lock()
	f.prompts = append(f.prompts, body)
	f.mu.Unlock()
	for _, d := range []string{"hello", " world"} {
		if err := s.Send(streaming.CompletionChunk{ID: "c1", Delta: d}); err != nil {
			return err
		}
	}
	return nil
}

func sampleRecords() []streaming.Record {
	return []streaming.Record{{ID: 1, Name: ptr("a\nb")}, {ID: 2}, {ID: 3, Name: ptr("\x1e<&>")}}
}

func sampleEvents(n int) []streaming.Event {
	out := make([]streaming.Event, n)
	for i := range out {
		out[i] = streaming.Event{ID: "e" + strconv.Itoa(i+1), Type: "created", Payload: map[string]json.RawMessage{"line": json.RawMessage(`"x\ny"`)}}
	}
	return out
}

// serveFeed runs the generated server for h on 127.0.0.1 behind a proxy
// that cuts the first connection after cutAfter SSE events (0: never), and
// returns a client of the proxy.
func serveFeed(t *testing.T, h streaming.Handler, cutAfter int, opts ...idemsrv.Option) *streaming.Client {
	t.Helper()
	srv, err := streaming.NewServer(h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	url := ts.URL
	if cutAfter > 0 {
		url = cuttingProxy(t, ts.Listener.Addr().String(), cutAfter)
	}
	c, err := streaming.NewClient(url, idemrt.WithClock(testutil.NewFakeClock()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cuttingProxy forwards TCP connections to addr; on the first one it passes
// the server's bytes up to the end of the n-th event ("\n\n": chunk framing
// uses CR LF, and JSON data has no raw LF) and then closes both sides, so
// the client holds n whole events and a body cut short.
func cuttingProxy(t *testing.T, addr string, n int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var first atomic.Bool
	first.Store(true)
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", addr)
			if err != nil {
				down.Close()
				return
			}
			go func() { io.Copy(up, down); up.Close() }()
			go relay(down, up, first.Swap(false), n)
		}
	}()
	return "http://" + ln.Addr().String()
}

// relay copies up to down; when cut, only up to the n-th event end.
func relay(down, up net.Conn, cut bool, n int) {
	defer down.Close()
	defer up.Close()
	if !cut {
		io.Copy(down, up)
		return
	}
	var seen []byte
	buf := make([]byte, 4096)
	for {
		k, err := up.Read(buf)
		seen = append(seen, buf[:k]...)
		if end := nthEventEnd(seen, n); end >= 0 {
			down.Write(seen[:end])
			return
		}
		if err != nil {
			return
		}
	}
}

// nthEventEnd is the offset just past the n-th "\n\n" in b, or -1.
func nthEventEnd(b []byte, n int) int {
	off := 0
	for range n {
		i := bytes.Index(b[off:], []byte("\n\n"))
		if i < 0 {
			return -1
		}
		off += i + 2
	}
	return off
}

// TestServerStreamResumesAfterACut: the connection is dropped by the
// network after two events; the client reconnects with Last-Event-ID 2
// and gets exactly the events after it, none twice, none missing.
func TestServerStreamResumesAfterACut(t *testing.T) {
	h := &feed{events: sampleEvents(5)}
	c := serveFeed(t, h, 2)
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{Topic: ptr("orders")})
	got := drain(t, s, err)
	if !reflect.DeepEqual(got, h.events) {
		t.Fatalf("events %+v, want %+v", got, h.events)
	}
	if resumes, _ := h.seen(); !reflect.DeepEqual(resumes, []string{"", "2"}) {
		t.Fatalf("the handler was opened with Last-Event-IDs %q, want \"\" then \"2\"", resumes)
	}
	if ev := s.Event(); ev.ID != "5" {
		t.Errorf("last event id %q", ev.ID)
	}
}

// TestServerStreamHandlerFailureCutsTheStream: a handler that fails after
// its first events does not end the stream cleanly (the client would take
// it as complete): the connection is aborted and the client resumes.
func TestServerStreamHandlerFailureCutsTheStream(t *testing.T) {
	var logged atomic.Int64
	h := &feed{events: sampleEvents(4), failAfter: 3}
	c := serveFeed(t, h, 0, idemsrv.WithOnError(func(*http.Request, error) { logged.Add(1) }))
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{})
	got := drain(t, s, err)
	if resumes, _ := h.seen(); !reflect.DeepEqual(got, h.events) || !reflect.DeepEqual(resumes, []string{"", "3"}) {
		t.Fatalf("events %+v, opened with %q", got, resumes)
	}
	if logged.Load() != 1 {
		t.Errorf("OnError called %d times, want 1", logged.Load())
	}
}

// TestServerStreamHostileText: line breaks in string events and in JSON
// values come back as sent (CR LF as LF, the one thing SSE cannot carry),
// as one event each: no value adds a field or an event.
func TestServerStreamHostileText(t *testing.T) {
	h := &feed{ticks: []string{"a\nevent: evil\nid: 99\n\ndata: injected", "b\r\nc", "", "retry: 1"}}
	c := serveFeed(t, h, 0)
	s, err := c.WatchTicker(context.Background())
	got := drain(t, s, err)
	want := []string{"a\nevent: evil\nid: 99\n\ndata: injected", "b\nc", "", "retry: 1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ticks %q, want %q", got, want)
	}
	if ev := s.Event(); ev.ID != "" || ev.Type != "message" || ev.Retry != 0 {
		t.Errorf("a tick set fields: %+v", ev)
	}
}

// TestServerStreamJSONFramings: JSON Lines, NDJSON and JSON text sequences
// arrive as sent, values holding LF and RS included.
func TestServerStreamJSONFramings(t *testing.T) {
	c := serveFeed(t, &feed{}, 0)
	ctx := context.Background()
	for name, open := range map[string]func() (*idemrt.Stream[streaming.Record], error){
		"jsonl":  func() (*idemrt.Stream[streaming.Record], error) { return c.ExportRecords(ctx) },
		"ndjson": func() (*idemrt.Stream[streaming.Record], error) { return c.ExportRecordsNdjson(ctx) },
		"seq":    func() (*idemrt.Stream[streaming.Record], error) { return c.ExportRecordSequence(ctx) },
	} {
		s, err := open()
		if got := drain(t, s, err); !reflect.DeepEqual(got, sampleRecords()) {
			t.Errorf("%s: records %+v", name, got)
		}
	}
}

func streamLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestServerKeyedStreamBypassesTheLedger: a keyed stream is served with or
// without a ledger (NewServer asks for none), never through it: the ledger
// cannot replay a stream, so a resumed call reaches the handler with the
// same key and its Last-Event-ID, and the handler resumes the job the key
// names.
func TestServerKeyedStreamBypassesTheLedger(t *testing.T) {
	if _, err := streaming.NewServer(&feed{}); err != nil {
		t.Fatalf("NewServer without a ledger option: %v", err)
	}
	job := []streaming.JobProgress{{Percent: 25}, {Percent: 50}, {Percent: 100, Message: ptr("done")}}
	h := &feed{job: job}
	c := serveFeed(t, h, 1, idemsrv.WithLedger(streamLedger(t)))
	s, err := c.RunJob(context.Background(), streaming.JobRequest{Name: "build"}, streaming.RunJobParams{IdempotencyKey: "job-1"})
	if got := drain(t, s, err); !reflect.DeepEqual(got, job) {
		t.Fatalf("progress %+v", got)
	}
	if resumes, keys := h.seen(); !reflect.DeepEqual(keys, []string{"job-1", "job-1"}) || !reflect.DeepEqual(resumes, []string{"", "1"}) {
		t.Fatalf("keys %q, Last-Event-IDs %q", keys, resumes)
	}
}

// TestServerKeyedStreamNeedsAKey: without a key the handler never runs.
func TestServerKeyedStreamNeedsAKey(t *testing.T) {
	srv, err := streaming.NewServer(&feed{})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest("POST", "/jobs", strings.NewReader(`{"name":"x"}`)))
	if w.Code != 400 || !strings.Contains(w.Body.String(), problem.KeyMissing) {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
}

// TestServerStreamReleasedWhenTheClientLeaves: a client that closes its
// stream cancels the handler's context, and Send reports it.
func TestServerStreamReleasedWhenTheClientLeaves(t *testing.T) {
	h := &feed{endless: func(i int) streaming.Event { return streaming.Event{ID: strconv.Itoa(i), Type: "tick"} }, done: make(chan error, 1)}
	c := serveFeed(t, h, 0)
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{})
	if err != nil || !s.Next() {
		t.Fatalf("open: %v %v", err, s.Err())
	}
	s.Close()
	if err := <-h.done; err == nil {
		t.Fatal("the handler sent every event to a client that left")
	}
}

// TestServerStreamReleasedFromASlowReader: a client that stops reading
// fills the connection's buffers; the write deadline then fails Send, so
// the handler returns instead of blocking forever.
func TestServerStreamReleasedFromASlowReader(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	h := &feed{endless: func(i int) streaming.Event { return streaming.Event{ID: strconv.Itoa(i), Type: big} }, done: make(chan error, 1)}
	c := serveFeed(t, h, 0, idemsrv.WithStreamWriteTimeout(200*time.Millisecond))
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ne net.Error
	if err := <-h.done; !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("the handler returned %v, want a write timeout", err)
	}
}

// TestServerServesBothFormsOfACompletion: CreateCompletion and
// CreateCompletionStream share a route; Accept picks the handler method,
// and the stream form's handler sees the body's stream member true.
func TestServerServesBothFormsOfACompletion(t *testing.T) {
	h := &feed{}
	c := serveFeed(t, h, 0)
	ctx := context.Background()
	s, err := c.CreateCompletionStream(ctx, streaming.CompletionRequest{Prompt: "hi"})
	var text strings.Builder
	for _, chunk := range drain(t, s, err) {
		text.WriteString(chunk.Delta)
	}
	whole, err := c.CreateCompletion(ctx, streaming.CompletionRequest{Prompt: "hi"})
	if err != nil || whole.Text != "hello world" || text.String() != "hello world" {
		t.Fatalf("streamed %q, whole %+v %v", text.String(), whole, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if on, set := h.prompts[0].Stream.Get(); len(h.prompts) != 2 || !on || !set || h.prompts[1].Stream.IsSet() {
		t.Fatalf("the handlers saw %+v", h.prompts)
	}
}

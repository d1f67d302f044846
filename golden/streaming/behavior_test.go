package streaming_test

// Behaviour tests of the generated streaming client against loopback
// servers: typed events arrive in order and once, [DONE] ends a stream, the
// Stream method of an operation with a JSON answer asks for events (Accept,
// and the body's stream member), and a download's bytes arrive whole
// through the reader. The runtime's own tests cover every resume rule; the
// two resume tests here prove the generated methods reach them.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/streaming"
	"github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// seen is what the server saw of each request.
type seen struct {
	Accept, LastEventID, Key, Range string
	Body                            []byte
}

// serve runs h on 127.0.0.1 and returns a client (a fake clock, so resume
// waits never sleep) and the requests the server saw.
func serve(t *testing.T, h http.HandlerFunc) (*streaming.Client, func() []seen) {
	t.Helper()
	var mu sync.Mutex
	var reqs []seen
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, seen{r.Header.Get("Accept"), r.Header.Get("Last-Event-ID"), r.Header.Get("Idempotency-Key"), r.Header.Get("Range"), body})
		mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := streaming.NewClient(ts.URL, idemrt.WithClock(testutil.NewFakeClock()))
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), reqs...)
	}
}

// writeStream answers with the content type and the frames, flushed.
func writeStream(w http.ResponseWriter, contentType string, frames ...string) {
	w.Header().Set("Content-Type", contentType)
	for _, f := range frames {
		io.WriteString(w, f)
		w.(http.Flusher).Flush()
	}
}

// drain collects a stream's events, failing the test on its error.
func drain[T any](t *testing.T, s *idemrt.Stream[T], err error) []T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []T
	for s.Next() {
		out = append(out, s.Current())
	}
	if err := s.Err(); err != nil {
		t.Fatalf("after %d events: %v", len(out), err)
	}
	return out
}

func TestSSEEventsArriveTypedAndInOrder(t *testing.T) {
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		writeStream(w, "text/event-stream",
			"id: 1\ndata: {\"id\":\"e1\",\"type\":\"created\"}\n\n",
			": a comment line\n\n",
			"id: 2\nevent: change\ndata: {\"id\":\"e2\",\n",
			"data: \"type\":\"updated\"}\n\n")
	})
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{Topic: ptr("orders")})
	got := drain(t, s, err)
	if len(got) != 2 || got[0].ID != "e1" || got[0].Type != "created" || got[1].ID != "e2" || got[1].Type != "updated" {
		t.Fatalf("events %+v", got)
	}
	if ev := s.Event(); ev.ID != "2" || ev.Type != "change" {
		t.Errorf("last raw event %+v", ev)
	}
	if r := reqs(); len(r) != 1 || r[0].Accept != "text/event-stream" {
		t.Errorf("requests %+v", r)
	}
}

func TestCompletionStreamAsksForEventsAndEndsAtDone(t *testing.T) {
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == "application/json" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c1","text":"hello world"}`)
			return
		}
		writeStream(w, "text/event-stream; charset=utf-8",
			"data: {\"id\":\"c1\",\"delta\":\"hello\"}\n\n",
			"data: {\"id\":\"c1\",\"delta\":\" world\"}\n\n",
			"data: [DONE]\n\n",
			"data: {\"id\":\"c1\",\"delta\":\"after done\"}\n\n")
	})
	s, err := c.CreateCompletionStream(context.Background(), streaming.CompletionRequest{Prompt: "hi"}, idemrt.WithJSONField("stream", false))
	var text strings.Builder
	for _, chunk := range drain(t, s, err) {
		text.WriteString(chunk.Delta)
	}
	if text.String() != "hello world" {
		t.Fatalf("streamed %q, want the two chunks before [DONE]", text.String())
	}
	whole, err := c.CreateCompletion(context.Background(), streaming.CompletionRequest{Prompt: "hi"})
	if err != nil || whole.Text != "hello world" {
		t.Fatalf("CreateCompletion: %+v %v", whole, err)
	}
	r := reqs()
	if len(r) != 2 || r[0].Accept != "text/event-stream" || r[1].Accept != "application/json" {
		t.Fatalf("requests %+v", r)
	}
	var sent map[string]any
	if err := json.Unmarshal(r[0].Body, &sent); err != nil || sent["stream"] != true || sent["prompt"] != "hi" {
		t.Errorf("stream request body %s (%v): want stream true, whatever the caller passed", r[0].Body, err)
	}
	if bytes.Contains(r[1].Body, []byte("stream")) {
		t.Errorf("JSON request body %s: want no stream member", r[1].Body)
	}
}

func TestJSONLinesNDJSONAndSequences(t *testing.T) {
	records := `{"id":1,"name":"a"}` + "\n" + `{"id":2}` + "\r\n\n" + `{"id":3,"name":"c"}`
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, ".seq"):
			writeStream(w, "application/json-seq", "\x1e{\"id\":1,\"name\":\"a\"}\n", "\x1e{\"id\":2}\n", "\x1e{\"id\":3,\"name\":\"c\"}\n")
		case strings.HasSuffix(r.URL.Path, ".ndjson"):
			writeStream(w, "application/x-ndjson", records)
		default:
			writeStream(w, "application/jsonl", records)
		}
	})
	ctx := context.Background()
	for name, open := range map[string]func() (*idemrt.Stream[streaming.Record], error){
		"jsonl":  func() (*idemrt.Stream[streaming.Record], error) { return c.ExportRecords(ctx) },
		"ndjson": func() (*idemrt.Stream[streaming.Record], error) { return c.ExportRecordsNdjson(ctx) },
		"seq":    func() (*idemrt.Stream[streaming.Record], error) { return c.ExportRecordSequence(ctx) },
	} {
		s, err := open()
		got := drain(t, s, err)
		if len(got) != 3 || got[0].ID != 1 || *got[0].Name != "a" || got[1].ID != 2 || got[1].Name != nil || got[2].ID != 3 {
			t.Errorf("%s: records %+v", name, got)
		}
	}
}

func TestStringEventsAreTheDataAsSent(t *testing.T) {
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		writeStream(w, "text/event-stream", "data: tick 1\n\n", "data: tick\ndata: 2\n\n")
	})
	s, err := c.WatchTicker(context.Background())
	if got := drain(t, s, err); len(got) != 2 || got[0] != "tick 1" || got[1] != "tick\n2" {
		t.Fatalf("ticks %q", got)
	}
}

func TestKeyedStreamSendsItsKey(t *testing.T) {
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		writeStream(w, "text/event-stream", "data: {\"percent\":50}\n\n", "data: {\"percent\":100,\"message\":\"done\"}\n\n")
	})
	s, err := c.RunJob(context.Background(), streaming.JobRequest{Name: "build"}, streaming.RunJobParams{IdempotencyKey: "job-key-1"})
	if got := drain(t, s, err); len(got) != 2 || got[1].Percent != 100 {
		t.Fatalf("progress %+v", got)
	}
	if r := reqs(); len(r) != 1 || r[0].Key != "job-key-1" {
		t.Fatalf("requests %+v", r)
	}
}

// payload is a download's content: 1 MiB of seeded random bytes.
func payload() []byte {
	b := make([]byte, 1<<20)
	rand.New(rand.NewSource(7)).Read(b)
	return b
}

func TestDownloadArrivesWholeThroughTheReader(t *testing.T) {
	want := payload()
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(want)))
		w.Write(want)
	})
	body, err := c.DownloadFile(context.Background(), streaming.DownloadFileParams{FileID: "f1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	if cerr := body.Close(); err != nil || cerr != nil {
		t.Fatalf("read: %v, close: %v", err, cerr)
	}
	if !bytes.Equal(got, want) || body.ContentType != "application/octet-stream" || body.Size != int64(len(want)) {
		t.Fatalf("got %d bytes (%s, size %d), want %d", len(got), body.ContentType, body.Size, len(want))
	}
	if r := reqs(); len(r) != 1 || r[0].Accept != "application/octet-stream" {
		t.Errorf("requests %+v: a download-only method asks for its declared type", r)
	}
}

func TestReportDownloadBesideTheJSONAnswer(t *testing.T) {
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == "application/pdf" {
			w.Header().Set("Content-Type", "application/pdf")
			io.WriteString(w, "%PDF-1.7 report")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"r1"}`)
	})
	body, err := c.GetReportDownload(context.Background(), streaming.GetReportParams{ReportID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	if got, _ := io.ReadAll(body); string(got) != "%PDF-1.7 report" {
		t.Fatalf("pdf %q", got)
	}
	res, err := c.GetReport(context.Background(), streaming.GetReportParams{ReportID: "r1"})
	if err != nil || res.Body.ID != "r1" {
		t.Fatalf("GetReport: %+v %v", res, err)
	}
	if r := reqs(); len(r) != 2 || r[1].Accept != "application/json, application/pdf" {
		t.Errorf("requests %+v", r)
	}
}

// cut answers with a chunked body of the frames, then drops the
// connection without the last chunk: the client sees the body cut
// mid-stream, as when a connection dies.
func cut(t *testing.T, w http.ResponseWriter, contentType string, frames ...string) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nTransfer-Encoding: chunked\r\n\r\n", contentType)
	for _, f := range frames {
		fmt.Fprintf(buf, "%x\r\n%s\r\n", len(f), f)
	}
	buf.Flush()
}

func TestDroppedSafeStreamResumesWithLastEventID(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			cut(t, w, "text/event-stream",
				"id: 1\ndata: {\"id\":\"e1\",\"type\":\"created\"}\n\n", "id: 2\ndata: {\"id\":\"e2\",\"type\":\"created\"}\n\n")
			return
		}
		writeStream(w, "text/event-stream", "id: 3\ndata: {\"id\":\"e3\",\"type\":\"created\"}\n\n")
	})
	s, err := c.WatchEvents(context.Background(), streaming.WatchEventsParams{})
	got := drain(t, s, err)
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	if strings.Join(ids, ",") != "e1,e2,e3" {
		t.Fatalf("events %v, want e1,e2,e3 once each", ids)
	}
	if r := reqs(); len(r) != 2 || r[0].LastEventID != "" || r[1].LastEventID != "2" {
		t.Fatalf("requests %+v, want a second one with Last-Event-ID 2", r)
	}
}

func TestDroppedKeyedStreamResumesWithTheSameKey(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			cut(t, w, "text/event-stream", "id: p50\ndata: {\"percent\":50}\n\n")
			return
		}
		writeStream(w, "text/event-stream", "id: p100\ndata: {\"percent\":100}\n\n")
	})
	s, err := c.RunJob(context.Background(), streaming.JobRequest{Name: "build"}, streaming.RunJobParams{})
	got := drain(t, s, err)
	if len(got) != 2 || got[0].Percent != 50 || got[1].Percent != 100 {
		t.Fatalf("progress %+v, want 50 then 100 once each", got)
	}
	r := reqs()
	if len(r) != 2 || r[0].Key == "" || r[1].Key != r[0].Key || r[1].LastEventID != "p50" || string(r[1].Body) != string(r[0].Body) {
		t.Fatalf("requests %+v: want the same generated key and body, resumed after p50", r)
	}
}

func TestDroppedUnsafeStreamIsNotResent(t *testing.T) {
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		cut(t, w, "text/event-stream", "data: {\"id\":\"c1\",\"delta\":\"partial\"}\n\n")
	})
	s, err := c.CreateCompletionStream(context.Background(), streaming.CompletionRequest{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var deltas []string
	for s.Next() {
		deltas = append(deltas, s.Current().Delta)
	}
	var cutErr *idemrt.StreamCutError
	if !errors.As(s.Err(), &cutErr) || cutErr.Events != 1 || len(deltas) != 1 || deltas[0] != "partial" {
		t.Fatalf("deltas %q, err %v: want the one event that arrived and a StreamCutError", deltas, s.Err())
	}
	if r := reqs(); len(r) != 1 {
		t.Fatalf("the server got %d requests; an unsafe stream must never be resent", len(r))
	}
}

func TestDroppedSafeDownloadResumesWithRange(t *testing.T) {
	want := payload()
	half := len(want) / 2
	c, reqs := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") == "" {
			conn, buf, _ := w.(http.Hijacker).Hijack()
			defer conn.Close()
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: %d\r\nAccept-Ranges: bytes\r\nETag: \"v1\"\r\n\r\n", len(want))
			buf.Write(want[:half])
			buf.Flush()
			return
		}
		// A 206 repeats the ETag a 200 would carry (RFC 9110 15.3.7): the
		// client resumes only the same representation.
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", half, len(want)-1, len(want)))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(want[half:])
	})
	body, err := c.GetInvoicePdf(context.Background(), streaming.GetInvoicePdfParams{InvoiceID: "i1"})
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	got, err := io.ReadAll(body)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d of %d bytes: %v", len(got), len(want), err)
	}
	if r := reqs(); len(r) != 2 || r[1].Range != fmt.Sprintf("bytes=%d-", half) {
		t.Fatalf("requests %+v, want a second one for the rest", r)
	}
}

func ptr[T any](v T) *T { return &v }

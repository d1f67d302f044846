package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/shared"
)

// streamCall runs op with a streamed body made of a fixed piece and r.
func streamCall(t *testing.T, r *Runner, op *Operation, content io.Reader, opts ...CallOption) (error, []Attempt) {
	t.Helper()
	var log []Attempt
	req := &Request{Method: op.Method, URL: mustURL(t, "http://api.test"+op.Path),
		Stream: []shared.Piece{{Bytes: []byte("head:")}, {Reader: content}}}
	_, err := r.Do(context.Background(), op, req, append(opts, WithAttemptLog(&log))...)
	return err, log
}

// TestStreamSeekerRewound: an io.ReadSeeker body is rewound for every
// attempt, so a retry after a 503 sends the same bytes, from where the
// reader stood when the call began.
func TestStreamSeekerRewound(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503), ok200}}
	content := bytes.NewReader([]byte("xxfile-bytes"))
	_, _ = content.Seek(2, io.SeekStart)
	if err, _ := streamCall(t, newTestRunner(d, newFakeClock()), &idempotentOp, content); err != nil {
		t.Fatal(err)
	}
	if len(d.bodies) != 2 || d.bodies[0] != "head:file-bytes" || d.bodies[1] != d.bodies[0] {
		t.Fatalf("bodies %q", d.bodies)
	}
	if d.reqs[0].ContentLength != int64(len("head:file-bytes")) || d.reqs[0].GetBody == nil {
		t.Fatalf("length %d, GetBody %v", d.reqs[0].ContentLength, d.reqs[0].GetBody != nil)
	}
}

// TestStreamReaderBuffered: a plain reader within the limit is buffered
// once and resent whole.
func TestStreamReaderBuffered(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503), ok200}}
	err, _ := streamCall(t, newTestRunner(d, newFakeClock()), &idempotentOp, io.MultiReader(strings.NewReader("abc")))
	if err != nil || len(d.bodies) != 2 || d.bodies[1] != "head:abc" {
		t.Fatalf("err %v bodies %q", err, d.bodies)
	}
}

// TestStreamReaderAboveLimit: a plain reader above the limit is sent once;
// the call that would retry stops with ErrBodyNotReplayable, and net/http
// gets no GetBody to resend it with.
func TestStreamReaderAboveLimit(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503), ok200}}
	r := newTestRunner(d, newFakeClock(), WithBufferLimit(4))
	err, log := streamCall(t, r, &idempotentOp, io.MultiReader(strings.NewReader("0123456789")))
	var se *StatusError
	if !errors.Is(err, ErrBodyNotReplayable) || !errors.As(err, &se) || se.StatusCode != 503 || len(log) != 1 {
		t.Fatalf("err %v, %d attempts", err, len(log))
	}
	if d.count() != 1 || d.bodies[0] != "head:0123456789" || d.reqs[0].GetBody != nil || d.reqs[0].ContentLength != -1 {
		t.Fatalf("sends %d bodies %q", d.count(), d.bodies)
	}
	if !strings.Contains(err.Error(), "buffering limit") {
		t.Fatalf("message %q", err)
	}
}

// TestStreamUnsafeNoGetBody: an unsafe operation's streamed body is never
// rewindable by net/http.
func TestStreamUnsafeNoGetBody(t *testing.T) {
	d := &fakeDoer{script: []step{ok200}}
	if err, _ := streamCall(t, newTestRunner(d, newFakeClock()), &unsafeOp, strings.NewReader("abc")); err != nil {
		t.Fatal(err)
	}
	if d.reqs[0].GetBody != nil {
		t.Fatal("unsafe streamed request has a GetBody")
	}
}

// TestWithResponseAndRequestID: WithResponse gets the final response on
// success and failure; the StatusError shows the request id and no key a
// GET never sent, while KeyOf still has the reconciliation key.
func TestWithResponseAndRequestID(t *testing.T) {
	ok := step{status: 200, body: "ok", wrote: 1, header: http.Header{"X-Ratelimit-Remaining": {"9"}}}
	var resp *http.Response
	r := newTestRunner(&fakeDoer{script: []step{ok}}, newFakeClock())
	if _, err, _ := doCall(t, r, &idempotentOp, "", WithResponse(&resp)); err != nil || resp == nil ||
		resp.StatusCode != 200 || resp.Header.Get("X-Ratelimit-Remaining") != "9" || resp.Body != http.NoBody {
		t.Fatalf("err %v resp %+v", err, resp)
	}
	bad := step{status: 404, body: "no", wrote: 1, header: http.Header{"X-Trace": {"t-1"}}}
	r = newTestRunner(&fakeDoer{script: []step{bad}}, newFakeClock(), WithRequestIDHeaders("X-Trace"))
	_, err, _ := doCall(t, r, &idempotentOp, "", WithResponse(&resp))
	var se *StatusError
	if !errors.As(err, &se) || se.RequestID != "t-1" || resp == nil || resp.StatusCode != 404 || KeyOf(err) == "" {
		t.Fatalf("err %v resp %v", err, resp)
	}
	if msg := err.Error(); msg != "putThing: HTTP 404 Not Found (request id t-1)" {
		t.Fatalf("message %q", msg)
	}
}

// TestCallOptionsOverrideClient: call > client > policy for attempts, base
// URL, query parameters and JSON members; the client's User-Agent is set
// and a header option overrides it.
func TestCallOptionsOverrideClient(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503)}}
	r := newTestRunner(d, newFakeClock(), WithMaxAttempts(2), WithBaseURL("http://client.test/v2"),
		WithQuery("a", "1"), WithUserAgent("idemgen/x (t)"))
	_, _, log := doCall(t, r, &idempotentOp, "")
	if len(log) != 2 || d.reqs[0].URL.String() != "http://client.test/v2/things/1?a=1" || d.reqs[0].Header.Get("User-Agent") != "idemgen/x (t)" {
		t.Fatalf("%d attempts, URL %s, UA %q", len(log), d.reqs[0].URL, d.reqs[0].Header.Get("User-Agent"))
	}
	d.reqs = nil
	_, _, log = doCall(t, r, &idempotentOp, "", WithMaxAttempts(3), WithBaseURL("http://call.test"), WithQuery("b", "x y"), WithHeader("User-Agent", "mine"))
	if len(log) != 3 || d.reqs[0].URL.String() != "http://call.test/things/1?a=1&b=x+y" || d.reqs[0].Header.Get("User-Agent") != "mine" {
		t.Fatalf("%d attempts, URL %s", len(log), d.reqs[0].URL)
	}
}

// TestWithJSONFieldMerged: extra members are merged into a JSON object body
// once; a body that is not a JSON object fails unsent.
func TestWithJSONFieldMerged(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503), ok200}}
	r := newTestRunner(d, newFakeClock())
	req := &Request{Method: "PUT", URL: mustURL(t, "http://api.test/things/1"), Body: []byte(`{"a":1,"b":2}`),
		Header: http.Header{"Content-Type": {"application/json"}}}
	if _, err := r.Do(context.Background(), &idempotentOp, req, WithJSONField("b", "new"), WithJSONField("c", true)); err != nil {
		t.Fatal(err)
	}
	if d.bodies[0] != `{"a":1,"b":"new","c":true}` || d.bodies[1] != d.bodies[0] {
		t.Fatalf("bodies %q", d.bodies)
	}
	_, err, _ := doCall(t, r, &idempotentOp, "", WithJSONField("c", 1))
	if !errors.Is(err, errNotJSONObject) {
		t.Fatalf("err %v", err)
	}
}

// TestWithTimeoutPerCall: a call's timeout replaces the policy's.
func TestWithTimeoutPerCall(t *testing.T) {
	d := &fakeDoer{script: []step{answer(503)}}
	clk := newFakeClock()
	r := newTestRunner(d, clk)
	_, err, _ := doCall(t, r, &idempotentOp, "", WithTimeout(time.Nanosecond))
	if !errors.Is(err, ErrDeadline) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
}

// TestCredentialSourceRefreshOnce: a 401 with a source refreshes once and
// resends once; a second 401 ends the call with ErrUnauthorized.
func TestCredentialSourceRefreshOnce(t *testing.T) {
	op := idempotentOp
	op.Security = []string{"bearer"}
	for _, tt := range []struct {
		script       []step
		sends, calls int
		ok           bool
	}{
		{[]step{answer(401), ok200}, 2, 2, true},
		{[]step{answer(401), answer(401), ok200}, 2, 2, false},
	} {
		d := &fakeDoer{script: tt.script}
		calls, refreshes := 0, 0
		src := func(ctx context.Context) (string, error) {
			calls++
			if CredentialRefresh(ctx) {
				refreshes++
			}
			return "t" + string(rune('0'+calls)), nil
		}
		r := newTestRunner(d, newFakeClock(), WithCredentialSource("bearer", src, func(req *http.Request, tok string) {
			req.Header.Set("Authorization", "Bearer "+tok)
		}))
		_, err, log := doCall(t, r, &op, "")
		if (err == nil) != tt.ok || d.count() != tt.sends || calls != tt.calls || refreshes != 1 || log[1].Reason != ReasonCredentialRefresh {
			t.Fatalf("err %v sends %d calls %d refreshes %d log %+v", err, d.count(), calls, refreshes, log)
		}
		if !tt.ok && !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("err %v", err)
		}
		if d.reqs[1].Header.Get("Authorization") != "Bearer t2" {
			t.Fatalf("second attempt %v", d.reqs[1].Header)
		}
	}
	// Static credentials fail fast.
	d := &fakeDoer{script: []step{answer(401), ok200}}
	if _, err, _ := doCall(t, newTestRunner(d, newFakeClock()), &op, ""); !errors.Is(err, ErrUnauthorized) || d.count() != 1 {
		t.Fatalf("static: err %v sends %d", err, d.count())
	}
}

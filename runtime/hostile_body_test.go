package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cutAfterHeader answers 201 with a Content-Length larger than what it
// sends, then drops the connection mid-body: the action committed, the
// response is lost.
func cutAfterHeader(w http.ResponseWriter, result string) {
	w.Header().Set("Content-Length", strconv.Itoa(len(result)+100))
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, result[:3])
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// TestLoopbackCutSuccessBody: the server commits, answers 201 and the
// connection dies mid-body. A keyed call retries with the same key and gets
// the stored result (one execution); an unsafe call stops with an unknown
// outcome that says the response was lost, carrying its key and attempts.
func TestLoopbackCutSuccessBody(t *testing.T) {
	s, srv := newShop(t, dropFirst("cut"))
	r, _ := loopRunner(t, quickPolicy())
	got, err, log := post(t, r, &keyedOp, srv.URL, "")
	if err != nil || got != "order-1" || s.executions.Load() != 1 || s.hits.Load() != 2 {
		t.Fatalf("keyed: %q %v, %d executions, %d hits", got, err, s.executions.Load(), s.hits.Load())
	}
	if len(log) != 2 || log[0].StatusCode != 201 || !errors.Is(log[0].Err, ErrResponseLost) ||
		log[1].Reason != ReasonUnknownOutcome || log[0].Key != log[1].Key {
		t.Fatalf("keyed records %+v", log)
	}

	s2, srv2 := newShop(t, dropFirst("cut"))
	_, err, log = post(t, r, &unsafeOp, srv2.URL, "")
	var lost *ResponseLostError
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.As(err, &lost) || lost.StatusCode != 201 || KeyOf(err) == "" ||
		len(AttemptsOf(err)) != 1 || s2.executions.Load() != 1 || s2.hits.Load() != 1 {
		t.Fatalf("unsafe: %v, key %q, %d executions", err, KeyOf(err), s2.executions.Load())
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(log) != 1 || log[0].Outcome != OutcomeUnknown {
		t.Fatalf("unsafe: %v, records %+v", err, log)
	}
}

// TestDecodeErrorCarriesKey: a success body that does not decode is an
// error with the call's key and attempts, matching ErrDecode.
func TestDecodeErrorCarriesKey(t *testing.T) {
	d := &fakeDoer{script: []step{{status: 201, body: "{not json", wrote: 1}}}
	var log []Attempt
	resp, err := newTestRunner(d, newFakeClock()).Do(context.Background(), &unsafeOp,
		&Request{Method: "POST", URL: mustURL(t, "http://api.test/things")}, WithAttemptLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	err = DecodeJSON(resp, &v)
	var se *json.SyntaxError
	if !errors.Is(err, ErrDecode) || !errors.As(err, &se) || KeyOf(err) == "" || len(AttemptsOf(err)) != 1 {
		t.Fatalf("decode error %v, key %q, %d attempts", err, KeyOf(err), len(AttemptsOf(err)))
	}
	if log[0].Key != KeyOf(err) {
		t.Fatalf("record key %q, error key %q", log[0].Key, KeyOf(err))
	}
	resp2, _ := newTestRunner(&fakeDoer{script: []step{{status: 200, body: "x", wrote: 1, header: http.Header{"Content-Type": {"image/png"}}}}},
		newFakeClock()).Do(context.Background(), &idempotentOp, &Request{Method: "PUT", URL: mustURL(t, "http://api.test/x")})
	_, err = DecodeMedia(resp2, Media{JSON: &v, Types: []string{"application/json"}})
	if !errors.Is(err, ErrUnexpectedContentType) || !errors.Is(err, ErrDecode) || KeyOf(err) == "" {
		t.Fatalf("media error %v, key %q", err, KeyOf(err))
	}
}

// TestSuccessBodyLimit: a success body over the limit, declared or not,
// ends the call with a typed error naming the limit.
func TestSuccessBodyLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", "11")
		}
		io.WriteString(w, "hello")
		w.(http.Flusher).Flush()
		io.WriteString(w, " world")
	}))
	defer srv.Close()
	r, _ := loopRunner(t, quickPolicy(), WithMaxBody(10))
	for _, q := range []string{"", "?chunked=1"} {
		_, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "GET", URL: mustURL(t, srv.URL+"/x"+q)})
		var tl *BodyTooLargeError
		if !errors.Is(err, ErrBodyTooLarge) || !errors.As(err, &tl) || tl.Limit != 10 || len(AttemptsOf(err)) != 1 || KeyOf(err) == "" {
			t.Fatalf("%q: %v", q, err)
		}
	}
	r2, _ := loopRunner(t, quickPolicy(), WithMaxBody(11))
	resp, err := r2.Do(context.Background(), &idempotentOp, &Request{Method: "GET", URL: mustURL(t, srv.URL+"/x?chunked=1")})
	if b, _ := DecodeBytes(resp); err != nil || string(b) != "hello world" {
		t.Fatalf("at the limit: %q %v", b, err)
	}
}

// TestBigBodyAllocatedOnce: a large success body with a declared length
// costs about its size in the client, not the doublings of a growing
// buffer (a 256 MB body took 829 MB).
func TestBigBodyAllocatedOnce(t *testing.T) {
	const size = 24 << 20
	payload := make([]byte, size)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.Write(payload)
	}))
	defer srv.Close()
	r, _ := loopRunner(t, quickPolicy())
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	resp, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "GET", URL: mustURL(t, srv.URL+"/big")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodeBytes(resp)
	goruntime.ReadMemStats(&after)
	if err != nil || len(b) != size {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size*3/2 {
		t.Fatalf("a %d MiB body allocated %d MiB", size>>20, alloc>>20)
	}
}

// TestErrorBodyTimeBound: a 503 whose body never finishes is read for
// Policy.ErrorBodyTimeout, not for the whole deadline: the call still makes
// its retry and ends on the attempt limit, not on the deadline.
func TestErrorBodyTimeBound(t *testing.T) {
	var hits atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "overloaded")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	p := quickPolicy()
	p.MaxAttempts, p.Timeout, p.ErrorBodyTimeout = 2, 5*time.Second, 50*time.Millisecond
	r, _ := loopRunner(t, p)
	_, err := r.Do(context.Background(), &idempotentOp, &Request{Method: "GET", URL: mustURL(t, srv.URL+"/slow")})
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 || !errors.Is(err, ErrAttemptsExhausted) || errors.Is(err, ErrDeadline) ||
		!strings.HasPrefix(string(se.Body), "overloaded") || hits.Load() != 2 {
		t.Fatalf("%v after %d hits", err, hits.Load())
	}
}

// TestPartialPolicyKeepsCeilings: a policy that sets only MaxAttempts keeps
// the default Retry-After ceiling and deadline: a 292-year hint stops the
// call at once instead of being obeyed.
func TestPartialPolicyKeepsCeilings(t *testing.T) {
	clk := newFakeClock()
	d := &fakeDoer{script: []step{retryAfter(503, "9223372036"), ok200}}
	r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(d), WithClock(clk), WithPolicy(Interactive, Policy{MaxAttempts: 2}))
	_, err, _ := doCall(t, r, &idempotentOp, "")
	if !errors.Is(err, ErrRetryAfterTooLong) || len(clk.Sleeps()) != 0 || d.count() != 1 {
		t.Fatalf("%v after sleeping %v", err, clk.Sleeps())
	}
	want := DefaultPolicy(Background)
	want.MaxAttempts = 2
	if got := NewRunner(WithPolicy(Background, Policy{MaxAttempts: 2})).policies[Background]; got != want {
		t.Fatalf("background policy %+v, want %+v", got, want)
	}
	if got := NewRunner(WithPolicy(Interactive, Policy{Timeout: -1})).policies[Interactive]; got.Timeout != 0 || got.MaxRetryAfter != 3*time.Second {
		t.Fatalf("negative timeout: %+v", got)
	}
}

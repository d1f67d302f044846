package shed

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/problem"
)

// TestShedQueueFollowsServiceTime: the virtual queue is timed at the
// service time the server measures now, not the one it assumed when each
// refusal was handed out. Refusals made under the initial one-second guess
// must not keep later clients away for a minute once requests prove to
// take 10 ms.
func TestShedQueueFollowsServiceTime(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(2, func() time.Time { return clock })
	// The refusals' queue alone: no request waits for a slot.
	s.maxQueued = 0
	for range 2 {
		if _, _, ok := s.admit(); !ok {
			t.Fatal("a free slot was refused")
		}
	}
	// A burst before any request ended: 200 refusals at 0.5 s a place
	// would be 100 s; the cap holds them at 60.
	for range 200 {
		if wait, _, ok := s.admit(); ok || wait > time.Minute {
			t.Fatalf("admit() = %v, %v during the burst; want refused, at most 60 s", wait, ok)
		}
	}
	// Requests now take 10 ms: one ends and another is admitted every 10 ms
	// for one second, and the average comes down to 10 ms.
	for range 100 {
		clock = clock.Add(10 * time.Millisecond)
		s.done(clock.Add(-10 * time.Millisecond))
		if _, _, ok := s.admit(); !ok {
			t.Fatal("the slot just freed was refused")
		}
	}
	// At 5 ms a place, the burst drained in about a second: a refusal now
	// is next in line.
	if wait, _, ok := s.admit(); ok || wait > time.Second {
		t.Errorf("admit() = %v, %v after the burst drained; want refused, at most 1 s", wait, ok)
	}
}

// TestShedRetryAfterMs: a refusal also carries its place to the
// millisecond in Retry-After-Ms (which generated clients read first), so
// the clients a queue shorter than a second holds come back spread over
// that second instead of together when Retry-After's whole second is up.
func TestShedRetryAfterMs(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(8, func() time.Time { return clock })
	s.inflight, s.service = 8, 5*time.Millisecond
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a refused request was served") }))
	var secs, ms []string
	for range 5 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		secs = append(secs, w.Header().Get("Retry-After"))
		ms = append(ms, w.Header().Get("Retry-After-Ms"))
	}
	// 5 ms for 8 slots: a place every 0.625 ms, rounded up to the millisecond.
	if got := strings.Join(ms, ","); got != "1,2,2,3,4" {
		t.Errorf("Retry-After-Ms = %s, want 1,2,2,3,4", got)
	}
	if got := strings.Join(secs, ","); got != "1,1,1,1,1" {
		t.Errorf("Retry-After = %s, want 1,1,1,1,1", got)
	}
}

// reusedWriter is a ResponseWriter that keeps its header map between
// answers, so AllocsPerRun counts what the Shedder allocates, not the
// writer.
type reusedWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *reusedWriter) Header() http.Header         { return w.h }
func (w *reusedWriter) WriteHeader(status int)      { w.status = status }
func (w *reusedWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// TestShedAnswerIsCheap: a refusal is the cheapest answer the server gives:
// its problem body and headers are made once per wait in whole seconds, so
// answering one allocates only Retry-After-Ms (its text and its slice).
func TestShedAnswerIsCheap(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(8, func() time.Time { return clock })
	s.inflight, s.service = 8, 5*time.Millisecond
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a refused request was served") }))
	r := httptest.NewRequest("GET", "/", nil)
	w := &reusedWriter{h: http.Header{}}
	allocs := testing.AllocsPerRun(200, func() {
		clear(w.h)
		// The queue stays short: a refusal every place drains one.
		clock = clock.Add(s.service / 8)
		h.ServeHTTP(w, r)
	})
	if w.status != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", w.status)
	}
	if allocs > 2 {
		t.Errorf("a refusal allocates %v times, want at most 2", allocs)
	}
}

// TestShedProblemBody: the precomputed refusal is the problem the server
// would have written for it, its Content-Length and wait included.
func TestShedProblemBody(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(2, func() time.Time { return clock })
	s.inflight, s.service = 2, 3*time.Second
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, secs := range []string{"2", "3", "5", "6"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		want := httptest.NewRecorder()
		problem.Write(want, http.StatusServiceUnavailable, problem.Overloaded,
			"the server is at its limit of 2 requests in progress; retry after "+secs+" seconds")
		if w.Code != 503 || w.Body.String() != want.Body.String() || w.Header().Get("Retry-After") != secs {
			t.Errorf("refusal %d %q (Retry-After %s), want 503 %q (%s)", w.Code, w.Body, w.Header().Get("Retry-After"), want.Body, secs)
		}
		for _, k := range []string{"Content-Type", "Content-Length", "X-Content-Type-Options"} {
			if w.Header().Get(k) != want.Header().Get(k) {
				t.Errorf("%s: %q, want %q", k, w.Header().Get(k), want.Header().Get(k))
			}
		}
	}
}

// BenchmarkShedAnswer is the Shedder's part of a refusal (net/http's own
// writing excluded): go test -run '^$' -bench ShedAnswer -benchmem
func BenchmarkShedAnswer(b *testing.B) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(8, func() time.Time { return clock })
	s.inflight, s.service = 8, 5*time.Millisecond
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	r := httptest.NewRequest("GET", "/", nil)
	w := &reusedWriter{h: http.Header{}}
	for b.Loop() {
		clear(w.h)
		clock = clock.Add(s.service / 8)
		h.ServeHTTP(w, r)
	}
}

// BenchmarkShedAdmit measures the Shedder's part of an admitted request:
// taking a slot, noting it for a stream's early release, giving it back
// and folding the service time; the handler does nothing.
func BenchmarkShedAdmit(b *testing.B) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(8, func() time.Time { return clock })
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	r := httptest.NewRequest("GET", "/", nil)
	w := &reusedWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

package runtime

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeClock advances only when the engine sleeps: tests never wait.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	// onSleep, when set, runs before each sleep (to cancel a context, say).
	onSleep func()
	// frozen clocks record sleeps without advancing, for tests where many
	// concurrent calls share one clock.
	frozen bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if f.onSleep != nil {
		f.onSleep()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sleeps = append(f.sleeps, d)
	if !f.frozen {
		f.now = f.now.Add(d)
	}
	return nil
}

func (f *fakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// step is one scripted attempt of a fakeDoer.
type step struct {
	status int
	header http.Header
	body   string
	// err fails the attempt; wrote is how many WroteRequest events fire
	// (GetConn always fires first, as in a real Transport).
	err   error
	wrote int
	// noTrace fires no trace event at all (a doer without trace support).
	noTrace bool
}

// Canned steps.
var (
	refused  = step{err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	reset    = step{err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, wrote: 1}
	ok200    = step{status: 200, body: "ok", wrote: 1}
	answer   = func(code int) step { return step{status: code, body: http.StatusText(code), wrote: 1} }
	errNoDoc = errors.New("doer without trace support failed")
)

// fakeDoer plays a script and records every request it gets; after the
// script it repeats the last step.
type fakeDoer struct {
	mu     sync.Mutex
	script []step
	reqs   []*http.Request
	bodies []string
}

func (d *fakeDoer) Do(r *http.Request) (*http.Response, error) {
	d.mu.Lock()
	i := min(len(d.reqs), len(d.script)-1)
	s := d.script[i]
	d.reqs = append(d.reqs, r)
	var body string
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
	}
	d.bodies = append(d.bodies, body)
	d.mu.Unlock()
	if t := httptrace.ContextClientTrace(r.Context()); t != nil && !s.noTrace {
		if t.GetConn != nil {
			t.GetConn(r.URL.Host)
		}
		for range s.wrote {
			if t.WroteRequest != nil {
				t.WroteRequest(httptrace.WroteRequestInfo{})
			}
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	h := s.header
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{StatusCode: s.status, Header: h, Body: io.NopCloser(strings.NewReader(s.body)), Request: r}, nil
}

func (d *fakeDoer) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.reqs)
}

// quickPolicy has no waits to speak of and no deadline unless set.
func quickPolicy() Policy {
	return Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond, MaxRetryAfter: time.Minute, Timeout: -1}
}

// newTestRunner wires a fake doer and clock with quickPolicy and an
// unlimited budget unless opts say otherwise.
func newTestRunner(d Doer, clk Clock, opts ...Option) *Runner {
	base := []Option{
		WithHTTPClient(d), WithClock(clk), WithRandom(func() float64 { return 0.5 }),
		WithPolicy(Interactive, quickPolicy()), WithPolicy(Background, quickPolicy()),
		WithBudget(Interactive, Budget{Unlimited: true}), WithBudget(Background, Budget{Unlimited: true}),
		// The engine's tests script failures and count attempts; the
		// throttle has tests of its own (throttle_test.go).
		WithoutAdaptiveThrottle(),
	}
	return NewRunner(append(base, opts...)...)
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

var (
	unsafeOp     = Operation{ID: "createThing", Method: "POST", Path: "/things", Safety: Unsafe, Retryable: DefaultRetryable}
	idempotentOp = Operation{ID: "putThing", Method: "PUT", Path: "/things/1", Safety: Idempotent, Retryable: DefaultRetryable}
	keyedOp      = Operation{ID: "createPayment", Method: "POST", Path: "/payments", Safety: Keyed, KeyHeader: "Idempotency-Key", Retryable: DefaultRetryable, QueryParams: []string{"ref"}}
)

// call runs one call of op with body "payload" and returns the response
// body (on success), the error and the attempt log.
func doCall(t testing.TB, r *Runner, op *Operation, key string, opts ...CallOption) (string, error, []Attempt) {
	t.Helper()
	var log []Attempt
	req := &Request{Method: op.Method, URL: mustURL(t, "http://api.test"+op.Path), Body: []byte("payload"), Key: key}
	resp, err := r.Do(context.Background(), op, req, append(opts, WithAttemptLog(&log))...)
	if err != nil {
		return "", err, log
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), nil, log
}

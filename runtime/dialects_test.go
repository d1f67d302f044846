package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// reply is one scripted answer of a dialectServer. execute says whether the
// business action runs for it (a refusal before execution does not).
type reply struct {
	status  int
	header  map[string]string
	execute bool
}

// dialectServer is a loopback API that answers with the retry dialect of a
// real one (GitHub, Stripe, a Stainless-built SDK's server, an IETF RateLimit
// server), one scripted reply per request, the last repeated. It counts the
// requests and the executions of the business action, and keeps the
// Idempotency-Key of each request.
type dialectServer struct {
	script     []reply
	hits       atomic.Int32
	executions atomic.Int32
	mu         sync.Mutex
	keys       []string
}

func (d *dialectServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := io.ReadAll(r.Body); err != nil {
		return
	}
	i := int(d.hits.Add(1)) - 1
	rep := d.script[min(i, len(d.script)-1)]
	d.mu.Lock()
	d.keys = append(d.keys, r.Header.Get("Idempotency-Key"))
	d.mu.Unlock()
	if rep.execute {
		d.executions.Add(1)
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, http.StatusText(rep.status))
}

// dialect starts a loopback server playing script and a Runner with a fake
// clock (no deadline unless p sets one, hints honoured up to a minute).
func dialect(t *testing.T, p Policy, script ...reply) (*dialectServer, *httptest.Server, *Runner, *fakeClock) {
	t.Helper()
	d := &dialectServer{script: script}
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	clk := newFakeClock()
	r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(&http.Client{Transport: tr}), WithClock(clk), WithPolicy(Interactive, p),
		WithRandom(func() float64 { return 0.5 }))
	return d, srv, r, clk
}

// dialectPolicy: 3 attempts, tiny backoff, hints up to a minute, no deadline.
func dialectPolicy() Policy {
	return Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond,
		MaxRetryAfter: time.Minute, Timeout: -1}
}

// callOp makes one call of op against base with the caller's key (or none).
func callOp(t *testing.T, r *Runner, op *Operation, base, key string) (string, error, []Attempt) {
	t.Helper()
	var log []Attempt
	req := &Request{Method: op.Method, URL: mustURL(t, base+op.Path), Body: []byte(`{"amount":100}`), Key: key,
		Header: http.Header{"Content-Type": {"application/json"}}}
	resp, err := r.Do(context.Background(), op, req, WithAttemptLog(&log))
	if err != nil {
		return "", err, log
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil, log
}

var created = reply{status: http.StatusCreated, execute: true}

// epoch is the fake clock's time plus d, as GitHub writes x-ratelimit-reset.
func epoch(d time.Duration) string {
	return strconv.FormatInt(newFakeClock().Now().Add(d).Unix(), 10)
}

// checkRun asserts the requests, the executions and the fake clock's sleeps.
func checkRun(t *testing.T, d *dialectServer, clk *fakeClock, hits, executions int, sleeps ...time.Duration) {
	t.Helper()
	if got := int(d.hits.Load()); got != hits {
		t.Errorf("the server got %d requests, want %d", got, hits)
	}
	if got := int(d.executions.Load()); got != executions {
		t.Errorf("the server executed the action %d times, want %d", got, executions)
	}
	if got := clk.Sleeps(); !slices.Equal(got, sleeps) {
		t.Errorf("the client slept %v, want %v", got, sleeps)
	}
}

// TestGitHubPrimaryLimitWaitsForReset: GitHub's primary rate limit is a 403
// with x-ratelimit-remaining: 0 and x-ratelimit-reset in epoch seconds. The
// server refused before executing, so even an unsafe POST waits until the
// reset and is sent again: one execution.
func TestGitHubPrimaryLimitWaitsForReset(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		limited := reply{status: status, header: map[string]string{
			"X-Ratelimit-Limit": "5000", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Used": "5000",
			"X-Ratelimit-Reset": epoch(20 * time.Second), "X-Ratelimit-Resource": "core"}}
		d, srv, r, clk := dialect(t, dialectPolicy(), limited, created)
		body, err, log := callOp(t, r, &unsafeOp, srv.URL, "")
		if err != nil || body != "Created" {
			t.Fatalf("%d: got %q, %v; want the retry to succeed", status, body, err)
		}
		// The reset plus the spread: rand 0.5 of min(20 s/10, 1 s).
		checkRun(t, d, clk, 2, 1, 20500*time.Millisecond)
		if log[1].Wait != 20500*time.Millisecond || log[1].WaitSource != WaitRetryAfter {
			t.Errorf("%d: second attempt's record %+v", status, log[1])
		}
	}
}

// TestGitHubPrimaryLimitBeyondDeadline: a reset the call cannot wait for
// ends it at once, without sleeping, with an error that matches
// ErrRateLimited, names the reset and wraps the limit that stopped it.
func TestGitHubPrimaryLimitBeyondDeadline(t *testing.T) {
	p := dialectPolicy()
	p.Timeout = 10 * time.Second
	limited := reply{status: http.StatusForbidden, header: map[string]string{
		"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": epoch(30 * time.Second)}}
	d, srv, r, clk := dialect(t, p, limited, created)
	_, err, _ := callOp(t, r, &unsafeOp, srv.URL, "")
	checkRun(t, d, clk, 1, 0)
	var rl *RateLimitError
	if !errors.Is(err, ErrRateLimited) || !errors.As(err, &rl) || !errors.Is(err, ErrRetryAfterTooLong) {
		t.Fatalf("err %v: want ErrRateLimited (*RateLimitError) wrapping ErrRetryAfterTooLong", err)
	}
	if want := newFakeClock().Now().Add(30 * time.Second); !rl.Reset.Equal(want) {
		t.Errorf("Reset %v, want %v", rl.Reset, want)
	}
	if errors.Is(err, ErrUnauthorized) {
		t.Error("a rate limit read as an auth failure")
	}
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusForbidden {
		t.Fatalf("want a *StatusError 403, got %v", err)
	}
}

// TestGitHubSecondaryLimit: GitHub's secondary rate limit is a 403 with
// Retry-After (and a quota that is not exhausted): the client waits as told.
// Retry-After wins over an x-ratelimit-reset sent beside it.
func TestGitHubSecondaryLimit(t *testing.T) {
	cases := []struct {
		name   string
		header map[string]string
	}{
		{"retry-after alone", map[string]string{"Retry-After": "3", "X-Ratelimit-Remaining": "4990", "X-Ratelimit-Reset": epoch(time.Hour)}},
		{"retry-after beside reset", map[string]string{"Retry-After": "3", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": epoch(40 * time.Second)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, srv, r, clk := dialect(t, dialectPolicy(), reply{status: http.StatusForbidden, header: c.header}, created)
			if _, err, _ := callOp(t, r, &unsafeOp, srv.URL, ""); err != nil {
				t.Fatal(err)
			}
			checkRun(t, d, clk, 2, 1, 3*time.Second)
		})
	}
}

// TestPlainForbiddenIsAuth: a 403 without a rate-limit signal (GitHub sends
// its quota headers on every answer, with requests left) is an auth
// failure: one request, ErrUnauthorized, never ErrRateLimited.
func TestPlainForbiddenIsAuth(t *testing.T) {
	forbidden := reply{status: http.StatusForbidden, header: map[string]string{
		"X-Ratelimit-Remaining": "4999", "X-Ratelimit-Reset": epoch(time.Hour), "RateLimit": `"default";r=10;t=30`}}
	d, srv, r, clk := dialect(t, dialectPolicy(), forbidden, created)
	_, err, _ := callOp(t, r, &idempotentOp, srv.URL, "")
	checkRun(t, d, clk, 1, 0)
	if !errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrRateLimited) {
		t.Fatalf("err %v: want ErrUnauthorized only", err)
	}
}

// TestStripeShouldRetryFalse: the server's "false" stops a retry the status
// table would make (a keyed call's 503): one request, the answer returned.
func TestStripeShouldRetryFalse(t *testing.T) {
	for _, h := range []string{"Stripe-Should-Retry", "X-Should-Retry"} {
		no := reply{status: http.StatusServiceUnavailable, header: map[string]string{h: "false", "Retry-After": "1"}}
		d, srv, r, clk := dialect(t, dialectPolicy(), no, created)
		_, err, log := callOp(t, r, &keyedOp, srv.URL, "k-1")
		checkRun(t, d, clk, 1, 0)
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable || len(log) != 1 {
			t.Fatalf("%s: err %v after %d attempts; want the 503 after one", h, err, len(log))
		}
	}
}

// TestStripeShouldRetryTrueKeyed: the server's "true" makes a keyed call
// retry a status the table would return (a 409 on the first send of the
// engine's key, a 500), with the same key: one execution.
func TestStripeShouldRetryTrueKeyed(t *testing.T) {
	for _, status := range []int{http.StatusConflict, http.StatusInternalServerError} {
		for _, h := range []string{"Stripe-Should-Retry", "X-Should-Retry"} {
			yes := reply{status: status, header: map[string]string{h: "true"}}
			d, srv, r, clk := dialect(t, dialectPolicy(), yes, created)
			if _, err, _ := callOp(t, r, &keyedOp, srv.URL, ""); err != nil {
				t.Fatalf("%d %s: %v", status, h, err)
			}
			checkRun(t, d, clk, 2, 1, 500*time.Microsecond)
			if d.keys[0] == "" || d.keys[0] != d.keys[1] {
				t.Errorf("%d %s: keys %q, want one key on both sends", status, h, d.keys)
			}
		}
	}
}

// TestShouldRetryTrueNeverResendsUnsafe: "true" does not make an unsafe
// POST resendable: a 500 is returned, and a gateway's 504 (the origin may
// have executed) ends with ErrOutcomeUnknown, each after one request.
func TestShouldRetryTrueNeverResendsUnsafe(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusGatewayTimeout} {
		yes := reply{status: status, header: map[string]string{"Stripe-Should-Retry": "true", "X-Should-Retry": "true"}, execute: true}
		d, srv, r, clk := dialect(t, dialectPolicy(), yes, created)
		_, err, _ := callOp(t, r, &unsafeOp, srv.URL, "")
		checkRun(t, d, clk, 1, 1)
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != status {
			t.Fatalf("%d: %v", status, err)
		}
		if status == http.StatusGatewayTimeout && !errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("504: %v, want ErrOutcomeUnknown", err)
		}
	}
}

// TestXShouldRetry: the header Stainless-built SDKs (openai-go, anthropic)
// read: "false" stops a 429's retry, "true" retries an idempotent PUT's 500.
func TestXShouldRetry(t *testing.T) {
	no := reply{status: http.StatusTooManyRequests, header: map[string]string{"X-Should-Retry": "false", "Retry-After": "2"}}
	d, srv, r, clk := dialect(t, dialectPolicy(), no, created)
	_, err, _ := callOp(t, r, &idempotentOp, srv.URL, "")
	checkRun(t, d, clk, 1, 0)
	if err == nil {
		t.Fatal("a 429 with x-should-retry: false was retried")
	}
	yes := reply{status: http.StatusInternalServerError, header: map[string]string{"X-Should-Retry": "true", "Retry-After-Ms": "250"}}
	d, srv, r, clk = dialect(t, dialectPolicy(), yes, created)
	if _, err, _ := callOp(t, r, &idempotentOp, srv.URL, ""); err != nil {
		t.Fatal(err)
	}
	checkRun(t, d, clk, 2, 1, 250*time.Millisecond)
}

// TestIETFRateLimitFields: the RateLimit field of
// draft-ietf-httpapi-ratelimit-headers (and the older RateLimit-Remaining /
// RateLimit-Reset pair): an exhausted quota on a 429, 403 or 503 waits its
// effective window, the longest of the exhausted ones.
// The waits are the window plus the spread of a quota reset: rand 0.5 of a
// tenth of the window.
func TestIETFRateLimitFields(t *testing.T) {
	cases := []struct {
		name   string
		status int
		header map[string]string
		wait   time.Duration
	}{
		{"429 RateLimit", 429, map[string]string{"RateLimit": `"default";r=0;t=7`, "RateLimit-Policy": `"default";q=100;w=60`}, 7350 * time.Millisecond},
		{"403 RateLimit", 403, map[string]string{"RateLimit": `"burst";r=0;t=4`}, 4200 * time.Millisecond},
		{"503 two policies", 503, map[string]string{"RateLimit": `"burst";r=0;t=2, "daily";r=10;t=86400, "hourly";r=0;t=5;pk=:cHsdsRa894==:`}, 5250 * time.Millisecond},
		{"older draft", 429, map[string]string{"RateLimit-Limit": "100", "RateLimit-Remaining": "0", "RateLimit-Reset": "6"}, 6300 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, srv, r, clk := dialect(t, dialectPolicy(), reply{status: c.status, header: c.header}, created)
			if _, err, _ := callOp(t, r, &idempotentOp, srv.URL, ""); err != nil {
				t.Fatal(err)
			}
			checkRun(t, d, clk, 2, 1, c.wait)
		})
	}
}

// TestIETFRateLimitTooLong: an effective window above MaxRetryAfter stops
// the call at once with ErrRateLimited, its Reset the end of the window.
func TestIETFRateLimitTooLong(t *testing.T) {
	limited := reply{status: 429, header: map[string]string{"RateLimit": `"daily";r=0;t=3600`}}
	d, srv, r, clk := dialect(t, dialectPolicy(), limited, created)
	_, err, _ := callOp(t, r, &keyedOp, srv.URL, "k-2")
	checkRun(t, d, clk, 1, 0)
	var rl *RateLimitError
	if !errors.As(err, &rl) || !errors.Is(err, ErrRetryAfterTooLong) || !rl.Reset.Equal(newFakeClock().Now().Add(time.Hour)) {
		t.Fatalf("err %v: want a *RateLimitError resetting in an hour, stopped by ErrRetryAfterTooLong", err)
	}
}

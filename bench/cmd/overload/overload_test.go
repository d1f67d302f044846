package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestCountsShedAnswers: the server wrapper tells served answers from 503s
// and counts the 503s that carry Retry-After.
func TestCountsShedAnswers(t *testing.T) {
	c := &counted{start: time.Now(), arrivals: make([]atomic.Int64, 2)}
	c.h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hinted":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/bare":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte("{}"))
		}
	})
	for _, p := range []string{"/hinted", "/hinted", "/bare", "/ok"} {
		rec := httptest.NewRecorder()
		c.ServeHTTP(&watch{ResponseWriter: rec, c: c}, httptest.NewRequest("GET", p, nil))
	}
	if s, h, ok := c.shed.Load(), c.hinted.Load(), c.served.Load(); s != 3 || h != 2 || ok != 1 {
		t.Errorf("shed %d, hinted %d, served %d; want 3, 2, 1", s, h, ok)
	}
	if n := c.arrivals[0].Load(); n != 4 {
		t.Errorf("%d arrivals in the first 100 ms, want 4", n)
	}
}

// TestSummarize: goodput counts the successes that ended within the load
// window against the capacity over it; failures are named by their error.
func TestSummarize(t *testing.T) {
	cfg := config{clients: 1, slots: 2, service: 10 * time.Millisecond, factor: 1, duration: time.Second}
	var calls []call
	for i := range 150 {
		calls = append(calls, call{end: time.Duration(i)*10*time.Millisecond + 5*time.Millisecond, latency: time.Duration(i) * time.Millisecond, attempts: 1})
	}
	calls = append(calls,
		call{attempts: 3, err: fmt.Errorf("get: %w", idemrt.ErrBudgetExhausted)},
		call{attempts: 1, err: errors.New("boom")})
	retries := make([]atomic.Int64, 5)
	retries[1].Store(6)
	retries[3].Store(3)
	srv := &counted{arrivals: make([]atomic.Int64, 12)}
	srv.arrivals[0].Store(300)
	srv.arrivals[9].Store(100)
	srv.arrivals[10].Store(50) // after the window
	o := summarize(cfg, calls, srv, retries)
	if o.arrived != 400 {
		t.Errorf("arrived %v a second, want 400", o.arrived)
	}
	// 100 of the 150 successes ended within 1 s; capacity is 200 over it.
	if o.goodput != 0.5 || o.succeeded != 150 || o.maxAttempts != 3 {
		t.Errorf("goodput %v, succeeded %d, max attempts %d; want 0.5, 150, 3", o.goodput, o.succeeded, o.maxAttempts)
	}
	if got := failureCell(o.failures); got != "1 boom, 1 retry budget exhausted" {
		t.Errorf("failures %q", got)
	}
	// 9 retries over buckets 1 to 3: a mean of 3, a peak of 6.
	if o.retries != 9 || o.retryPeak != 6 || o.retryMean != 3 {
		t.Errorf("retries %d, peak %v, mean %v; want 9, 6, 3", o.retries, o.retryPeak, o.retryMean)
	}
}

// TestServeChildReports: the -serve side of -split answers on loopback
// once the parent has sent the run's start, and reports what it served
// when its stdin closes.
func TestServeChildReports(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cfg := config{slots: 2, service: time.Millisecond, duration: time.Second, queue: -1}
	errc := make(chan error, 1)
	go func() { errc <- serveChild(cfg, inR, outW); outW.Close() }()
	out := bufio.NewReader(outR)
	url, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(inW, "%d\n", time.Now().UnixNano())
	if ack, err := out.ReadString('\n'); ack != "ok\n" {
		t.Fatalf("ack %q, %v", ack, err)
	}
	resp, err := http.Get(strings.TrimSpace(url) + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	inW.Close()
	var r report
	if err := json.NewDecoder(out).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || r.Served != 1 || r.Shed != 0 || r.Arrivals[0] != 1 || r.Busy < int64(time.Millisecond) {
		t.Errorf("status %d; report %+v; want 200, one served, one arrival, a millisecond busy", resp.StatusCode, r)
	}
}

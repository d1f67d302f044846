package main

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// server is a loopback server with a heavy latency tail, or an outage.
type server struct {
	*httptest.Server
	base   time.Duration
	slow   float64
	factor int
	// outage, when set, answers every request 503 after that long.
	outage time.Duration

	mu       sync.Mutex
	rnd      *rand.Rand
	requests atomic.Int64
}

// newServer starts a server; each variant's draws its slow requests from
// its own stream of the seed.
func newServer(cfg config, outage time.Duration, stream uint64) *server {
	s := &server{base: cfg.base, slow: cfg.slow, factor: cfg.factor, outage: outage,
		rnd: rand.New(rand.NewPCG(cfg.seed, stream^0x9e3779b97f4a7c15))}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.outage > 0 {
		wait(r, s.outage)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	d := s.base
	if s.draw() {
		d *= time.Duration(s.factor)
	}
	if !wait(r, d) {
		// The client gave up on this request (a hedge's loser).
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"ord_7f3a9c","status":"pending","total":8847}`)
}

// draw says whether this request is a slow one.
func (s *server) draw() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rnd.Float64() < s.slow
}

// wait waits d, or until the client is gone; it reports whether d passed.
func wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

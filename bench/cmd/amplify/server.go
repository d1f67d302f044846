package main

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
)

// callHeader carries the logical call's number on every attempt, so the
// server can count attempts per call whatever the client's retry loop.
const callHeader = "X-Bench-Call"

// server is the loopback server of one scenario: it fails a fraction of
// attempts with 503 and counts every attempt it sees, per logical call.
type server struct {
	*httptest.Server
	attempts []atomic.Int32
	total    atomic.Int64

	mu       sync.Mutex
	rnd      *rand.Rand
	failRate float64
}

// newServer starts a server for calls logical calls that answers 503 to a
// failRate share of attempts, drawn from a PCG source seeded with seed
// (failRate 1 is a total outage).
func newServer(calls int, failRate float64, seed uint64) *server {
	s := &server{
		attempts: make([]atomic.Int32, calls),
		rnd:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		failRate: failRate,
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s.total.Add(1)
	if n, err := strconv.Atoi(r.Header.Get(callHeader)); err == nil && n >= 0 && n < len(s.attempts) {
		s.attempts[n].Add(1)
	}
	w.Header().Set("Content-Type", "application/json")
	if s.fail() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"code":"unavailable","message":"try again"}`)
		return
	}
	_, _ = io.WriteString(w, `{"id":"ord_7f3a9c","status":"pending","total":8847}`)
}

// fail draws whether this attempt fails.
func (s *server) fail() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failRate >= 1 || s.failRate <= 0 {
		return s.failRate >= 1
	}
	return s.rnd.Float64() < s.failRate
}

// setFailRate changes the share of attempts that fail (0: the host has
// recovered).
func (s *server) setFailRate(r float64) {
	s.mu.Lock()
	s.failRate = r
	s.mu.Unlock()
}

// attemptsOf sums the attempts of calls [from, to).
func (s *server) attemptsOf(from, to int) int64 {
	var n int64
	for i := from; i < to; i++ {
		n += int64(s.attempts[i].Load())
	}
	return n
}

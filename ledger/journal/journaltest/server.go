// Package journaltest is the behaviour suite every SQL journal passes
// (sqlitestore and pgstore run it): a loopback server with a minimal
// idempotency ledger counts business executions, and each test asserts
// them, not replies.
package journaltest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// Shop is a loopback API: POST /payments (keyed: a repeated key replays the
// stored answer), POST /transfers (unsafe; the body's "ref" is its client
// reference) and GET /transfers?ref= (the transfers' x-lookup).
type Shop struct {
	URL        string
	executions atomic.Int32
	hits       atomic.Int32
	mu         sync.Mutex
	byKey      map[string]string
	byRef      map[string]string
	// dropNext makes the next execution lose its response after
	// committing (the connection is closed).
	dropNext atomic.Bool
	// unavailable answers 503 to that many requests.
	unavailable atomic.Int32
	// stall, when set, holds the next business request before it executes.
	stall atomic.Pointer[stall]
}

// stall is one held request: arrived is closed when it reaches the
// handler, which then waits for release.
type stall struct {
	arrived, release chan struct{}
	once             sync.Once
}

// NewShop starts a Shop for the test.
func NewShop(t testing.TB) *Shop {
	s := &Shop{byKey: map[string]string{}, byRef: map[string]string{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Executions counts business executions; Hits the requests that reached
// the business routes (lookups included).
func (s *Shop) Executions() int { return int(s.executions.Load()) }

// Hits counts the requests to the business routes.
func (s *Shop) Hits() int { return int(s.hits.Load()) }

// DropNext makes the next execution commit and then lose its response.
func (s *Shop) DropNext() { s.dropNext.Store(true) }

// StallNext makes the next business POST wait, before it executes, until
// release is called (a slow server): arrived is closed when it reaches the
// handler. A request whose client gives up first executes nothing.
func (s *Shop) StallNext() (arrived <-chan struct{}, release func()) {
	st := &stall{arrived: make(chan struct{}), release: make(chan struct{})}
	s.stall.Store(st)
	return st.arrived, func() { st.once.Do(func() { close(st.release) }) }
}

// Unavailable makes the next n requests get 503 without executing.
func (s *Shop) Unavailable(n int) { s.unavailable.Store(int32(n)) }

func (s *Shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	if s.unavailable.Add(-1) >= 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if r.Method == http.MethodGet {
		s.mu.Lock()
		res, ok := s.byRef[r.URL.Query().Get("ref")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, res)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if st := s.stall.Swap(nil); st != nil {
		close(st.arrived)
		select {
		case <-st.release:
		case <-r.Context().Done():
			return
		}
	}
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	if stored, ok := s.byKey[key]; ok && key != "" {
		s.mu.Unlock()
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, stored)
		return
	}
	result := `{"id":"order-` + strconv.Itoa(int(s.executions.Add(1))) + `"}`
	if key != "" {
		s.byKey[key] = result
	}
	var in struct{ Ref string }
	if json.Unmarshal(body, &in) == nil && in.Ref != "" {
		s.byRef[in.Ref] = result
	}
	s.mu.Unlock()
	if s.dropNext.CompareAndSwap(true, false) {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, result)
}

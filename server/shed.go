package idemsrv

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// shedder admits at most max requests at once. Each request it turns away
// is given a return time in a virtual queue that drains at the server's
// pace (max requests per observed service time): the first max refused
// come back after one service time, the next max after two, and so on. So
// a burst of 1,000 clients that honour Retry-After returns spread over the
// time the server needs for them, not all in the same second.
type shedder struct {
	mu       sync.Mutex
	max      int
	inflight int
	now      func() time.Time
	// service is the moving average of how long an admitted request takes.
	service time.Duration
	// tail is the return time handed to the last refused request.
	tail time.Time
}

const (
	// initialService is the service time assumed before any request ended.
	initialService = time.Second
	// maxShedWait caps Retry-After: past it, clients are better served by
	// their own backoff than by a promise this far ahead.
	maxShedWait = 60 * time.Second
)

func newShedder(max int, now func() time.Time) *shedder {
	return &shedder{max: max, now: now, service: initialService}
}

func (s *shedder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait, ok := s.admit()
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(wait))
			WriteProblem(w, http.StatusServiceUnavailable, ProblemOverloaded,
				fmt.Sprintf("the server is at its limit of %d requests in progress; retry after %d seconds", s.max, wait))
			return
		}
		start := s.now()
		defer s.done(start)
		h.ServeHTTP(w, r)
	})
}

// admit takes a slot, or returns the whole seconds the refused request
// should wait: its place in the virtual queue.
func (s *shedder) admit() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight < s.max {
		s.inflight++
		return 0, true
	}
	now := s.now()
	t := s.tail
	if t.Before(now) {
		t = now
	}
	t = t.Add(s.service / time.Duration(s.max))
	if t.Sub(now) > maxShedWait {
		t = now.Add(maxShedWait)
	}
	s.tail = t
	secs := int((t.Sub(now) + time.Second - 1) / time.Second)
	return max(secs, 1), false
}

// done frees the slot and folds the request's duration into the average
// (weight 1/8).
func (s *shedder) done(start time.Time) {
	d := max(s.now().Sub(start), time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	s.service += (d - s.service) / 8
}

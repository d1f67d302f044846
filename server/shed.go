package idemsrv

import (
	"net/http"
	"reflect"
	"sync"
	"time"
)

// shedder admits at most max requests at once. Each request it turns away
// is given a place in a virtual queue that drains at the server's pace (max
// requests per observed service time): the first max refused come back
// after one service time, the next max after two, and so on. So a burst of
// 1,000 clients that honour Retry-After returns spread over the time the
// server needs for them, not all in the same second.
//
// The queue is kept as a count of requests, not as a return time, so it is
// always timed at the current service time: refusals handed out under the
// initial guess (a second) drain at the measured pace once requests end,
// instead of keeping every later client away for up to maxShedWait.
type shedder struct {
	mu       sync.Mutex
	max      int
	inflight int
	now      func() time.Time
	// service is the moving average of how long an admitted request takes.
	service time.Duration
	// queued is the number of refused requests still ahead in the virtual
	// queue as of drained.
	queued  float64
	drained time.Time
	// refusals are the precomputed 503s, by whole seconds of wait.
	refusals []refusal
	// queue holds the requests waiting for a slot, at most maxQueued, in
	// arrival order (shed_queue.go); measured is set once a request has
	// ended, so service is no longer the initial guess.
	queue     []*waiter
	maxQueued int
	measured  bool
	after     func(time.Duration) (<-chan time.Time, func() bool)
	// held is when each admitted request got its slot, by its response
	// writer, so that a stream can give its slot back when it starts
	// (release) and the request's end then finds it gone.
	held map[http.ResponseWriter]time.Time
}

const (
	// initialService is the service time assumed before any request ended.
	initialService = time.Second
	// maxShedWait caps Retry-After: past it, clients are better served by
	// their own backoff than by a promise this far ahead.
	maxShedWait = 60 * time.Second
)

func newShedder(max int, now func() time.Time) *shedder {
	return &shedder{max: max, now: now, service: initialService, refusals: refusals(max),
		maxQueued: defaultQueue(max), after: timer, held: make(map[http.ResponseWriter]time.Time, max)}
}

func (s *shedder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait, q, ok := s.admit()
		if q != nil {
			wait, ok = s.await(r.Context(), q, wait)
		}
		if !ok {
			s.refuse(w, wait)
			return
		}
		if !byPointer(w) {
			// Not safe to hash (see byPointer): the slot is held to the end.
			defer s.done(s.now())
			h.ServeHTTP(w, r)
			return
		}
		s.hold(w)
		defer s.release(w)
		h.ServeHTTP(w, r)
	})
}

// byPointer reports whether w is a pointer, which every ResponseWriter of
// net/http and of common middleware is: a safe key of held. A value type
// may hold a map, and hashing it would panic.
func byPointer(w http.ResponseWriter) bool {
	return reflect.TypeOf(w).Kind() == reflect.Pointer
}

// hold notes when the request answered on w got its slot.
func (s *shedder) hold(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held[w] = s.now()
}

// release gives back the slot of the request answered on w, once: when a
// stream starts (its status and headers are out, and it is an open
// connection from then on, not work waiting for a slot), else when the
// request ends.
func (s *shedder) release(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if start, ok := s.held[w]; ok {
		delete(s.held, w)
		s.doneLocked(start)
	}
}

// admit takes a slot; or, all being busy, a place in the admission queue
// with how long it may wait there; or it refuses the request with how long
// it should wait before it comes back: its place in the virtual queue.
func (s *shedder) admit() (time.Duration, *waiter, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight < s.max {
		s.inflight++
		return 0, nil, true
	}
	if q, d := s.enqueue(); q != nil {
		return d, q, false
	}
	return s.place(), nil, false
}

// place adds a refused request to the virtual queue and returns its wait.
// The requests waiting in the admission queue are ahead of it. The caller
// holds the lock.
func (s *shedder) place() time.Duration {
	now := s.now()
	place := float64(max(s.service/time.Duration(s.max), time.Nanosecond))
	if gone := now.Sub(s.drained); gone > 0 {
		s.queued = max(s.queued-float64(gone)/place, 0)
	}
	s.drained = now
	s.queued = min(s.queued+1, float64(maxShedWait)/place)
	return time.Duration(min((s.queued+float64(len(s.queue)))*place, float64(maxShedWait)))
}

// done folds the request's duration into the average (weight 1/8) and
// hands its slot to the first request in the admission queue, or frees it.
func (s *shedder) done(start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.doneLocked(start)
}

// doneLocked is done with the lock held.
func (s *shedder) doneLocked(start time.Time) {
	d := max(s.now().Sub(start), time.Millisecond)
	s.service += (d - s.service) / 8
	s.measured = true
	if !s.handOver() {
		s.inflight--
	}
}

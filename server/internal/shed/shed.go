package shed

import (
	"net/http"
	"reflect"
	"sync"
	"time"
)

// Shedder admits at most max requests at once. Each request it turns away
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
type Shedder struct {
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
	// (Release) and the request's end then finds it gone.
	held map[http.ResponseWriter]time.Time
}

const (
	// InitialService is the service time assumed before any request ended.
	InitialService = time.Second
	// maxShedWait caps Retry-After: past it, clients are better served by
	// their own backoff than by a promise this far ahead.
	maxShedWait = 60 * time.Second
)

// New is the shedder of a server that serves at most max requests at once,
// timed by now. It queues a quarter of max for a slot (SetMaxQueued).
func New(max int, now func() time.Time) *Shedder {
	return &Shedder{max: max, now: now, service: InitialService, refusals: refusals(max),
		maxQueued: defaultQueue(max), after: timer, held: make(map[http.ResponseWriter]time.Time, max)}
}

// Wrap admits each request to h, queues it for a slot, or answers it 503
// with the wait its place in the virtual queue gives.
func (s *Shedder) Wrap(h http.Handler) http.Handler {
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
		defer s.Release(w)
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
func (s *Shedder) hold(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held[w] = s.now()
}

// Release gives back the slot of the request answered on w, once: when a
// stream starts (its status and headers are out, and it is an open
// connection from then on, not work waiting for a slot), else when the
// request ends.
func (s *Shedder) Release(w http.ResponseWriter) {
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
func (s *Shedder) admit() (time.Duration, *waiter, bool) {
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
func (s *Shedder) place() time.Duration {
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
func (s *Shedder) done(start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.doneLocked(start)
}

// doneLocked is done with the lock held.
func (s *Shedder) doneLocked(start time.Time) {
	d := max(s.now().Sub(start), time.Millisecond)
	s.service += (d - s.service) / 8
	s.measured = true
	if !s.handOver() {
		s.inflight--
	}
}

// SetMaxQueued sets how many requests may wait for a slot (WithMaxQueued);
// call it before Wrap serves a request.
func (s *Shedder) SetMaxQueued(n int) { s.maxQueued = n }

// MaxQueued is how many requests may wait for a slot.
func (s *Shedder) MaxQueued() int { return s.maxQueued }

// Load is the shedder's state for a test: the requests in flight, the
// slots held by writer (a stream's until it starts) and the service time.
func (s *Shedder) Load() (inflight, held int, service time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inflight, len(s.held), s.service
}

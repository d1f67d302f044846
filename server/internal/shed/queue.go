package shed

import (
	"context"
	"slices"
	"time"
)

// waiter is a request in the admission queue: every slot is busy, and it
// waits for the next one to be freed instead of being refused at once.
type waiter struct {
	// ready receives the slot a finished request hands over.
	ready chan struct{}
	// granted is set, under the Shedder's lock, with the hand-over.
	granted bool
}

// defaultQueue is how many requests wait for a slot under
// WithMaxInFlight(n) alone: a quarter of n (at least one). Slots free
// about n per service time, so the last in the queue waits about a
// quarter of it, half the wait it is allowed.
func defaultQueue(slots int) int { return max((slots+3)/4, 1) }

// timer starts a real timer; the Shedder's after, which tests replace.
func timer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// enqueue puts a request that found every slot busy in the queue, if the
// queue has room and the server has measured its service time (a wait is
// bounded by a fraction of it, never by the initial guess). It returns the
// waiter and how long it may wait. The caller holds the lock.
func (s *Shedder) enqueue() (*waiter, time.Duration) {
	if !s.measured || len(s.queue) >= s.maxQueued {
		return nil, 0
	}
	q := &waiter{ready: make(chan struct{}, 1)}
	s.queue = append(s.queue, q)
	return q, max(s.service/2, time.Microsecond)
}

// await waits for q's slot for at most d, or until the client goes away.
// It returns true with the slot, or the refusal's wait, its place among
// the refused, when no slot came.
func (s *Shedder) await(ctx context.Context, q *waiter, d time.Duration) (time.Duration, bool) {
	expired, stop := s.after(d)
	select {
	case <-q.ready:
		stop()
		return 0, true
	case <-expired:
	case <-ctx.Done():
		stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.granted {
		// The slot came as the wait ended: it is this request's now.
		return 0, true
	}
	if i := slices.Index(s.queue, q); i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
	}
	return s.place(), false
}

// handOver gives the slot a finished request frees to the first waiter,
// if any. The caller holds the lock.
func (s *Shedder) handOver() bool {
	if len(s.queue) == 0 {
		return false
	}
	q := s.queue[0]
	s.queue = slices.Delete(s.queue, 0, 1)
	q.granted = true
	q.ready <- struct{}{}
	return true
}

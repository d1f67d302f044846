package runtime

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrIdleTimeout is matched by the error of a read of a live response (an
// event stream, a download) that made no progress within the idle timeout
// (Policy.IdleTimeout, WithIdleTimeout): the engine closed the connection.
var ErrIdleTimeout = errors.New("no data arrived within the idle timeout")

// IdleTimeoutError is the read error of a live response cut by the idle
// timeout. It is a timeout in the net.Error sense.
type IdleTimeoutError struct {
	// Idle is the idle timeout that ran out.
	Idle time.Duration
}

// Error names the timeout.
func (e *IdleTimeoutError) Error() string {
	return fmt.Sprintf("no data arrived within the idle timeout (%v)", e.Idle)
}

// Is matches ErrIdleTimeout.
func (e *IdleTimeoutError) Is(target error) bool { return target == ErrIdleTimeout }

// Temporary is false: the connection is gone.
func (e *IdleTimeoutError) Temporary() bool { return false }

// Timeout reports true, so a retry after it is charged as one after a
// timeout.
func (e *IdleTimeoutError) Timeout() bool { return true }

// idleWatch cuts a live body whose reads stop making progress: a read in
// progress for longer than d fires onIdle (which closes the body, aborting
// the read). It keeps one timer armed at a time and re-arms it lazily, so
// a fast body costs a timer per d and not one per read.
type idleWatch struct {
	clock  Clock
	d      time.Duration
	onIdle func()

	mu sync.Mutex
	// reading: a Read is in progress, since when.
	reading bool
	since   time.Time
	// armed: a timer is pending, cancel stops it; fired: the watch cut
	// the body; closed: the body was closed.
	armed, fired, closed bool
	cancel               func() bool
}

// begin marks the start of a Read; it reports whether the body was already
// cut.
func (w *idleWatch) begin() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reading, w.since = true, w.now()
	if !w.armed && !w.fired && !w.closed {
		w.arm(w.d)
	}
	return w.fired
}

// end marks the end of a Read; it reports whether the watch cut the body.
func (w *idleWatch) end() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reading = false
	return w.fired
}

// now is the time of the clock the timers run on: the Runner's when it is
// a TimerClock, else the real one (see afterFunc).
func (w *idleWatch) now() time.Time {
	if _, ok := w.clock.(TimerClock); ok {
		return w.clock.Now()
	}
	return time.Now()
}

// arm starts the timer; w.mu is held.
func (w *idleWatch) arm(d time.Duration) {
	w.armed = true
	w.cancel = afterFunc(w.clock, d, w.fire)
}

// fire runs when the timer expires: it cuts the body when the Read in
// progress started d ago or more, re-arms for the rest when it started
// later, and stays disarmed when no Read is in progress (the next begins
// the count again).
func (w *idleWatch) fire() {
	w.mu.Lock()
	w.armed = false
	if !w.reading || w.fired || w.closed {
		w.mu.Unlock()
		return
	}
	if left := w.since.Add(w.d).Sub(w.now()); left > 0 {
		w.arm(left)
		w.mu.Unlock()
		return
	}
	w.fired = true
	w.mu.Unlock()
	w.onIdle()
}

// stop disarms the watch for good (the body is being closed).
func (w *idleWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.armed {
		w.cancel()
		w.armed = false
	}
}

package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadlineSlack is how much later than Policy.Timeout a shared deadline may
// fall: calls that start within this window share one deadline context.
const deadlineSlack = 10 * time.Millisecond

// deadlines hands out shared deadline contexts to calls whose context can
// never be cancelled (context.Background and values over it), the common case
// for a client call. A context.WithTimeout per call costs a timer, a context,
// a channel and a wrapper to cancel them when the body is closed; sharing one
// deadline among the calls that start in the same 10ms costs nothing per call,
// and the context expires on its own. The price is a deadline up to 10ms
// later than Policy.Timeout.
type deadlines struct {
	mu  sync.Mutex
	cur atomic.Pointer[window]
}

// window is one shared deadline context.
//
// A window no call will get again (a newer one replaced it) is released as
// soon as its last call ends: its context is cancelled, which stops its
// timer. Left to expire, every window would live for the whole Timeout, a
// thousand of them at a time for a busy client with the 10 s default (one
// per 10 ms), each with a pending runtime timer and a context the garbage
// collector marks on every cycle; callgrind measured that at about 1,200
// instructions a call in the bench GET (docs/benchmarks.md). The calls of a
// window are counted, not tracked: users is their number, -1 once the
// window is released, so that a call can no longer join it.
type window struct {
	ctx    context.Context
	cancel context.CancelFunc
	// until is the last start time that may share this context.
	until time.Time
	users atomic.Int64
	// replaced: a newer window is the current one.
	replaced atomic.Bool
}

// get returns a window whose context expires between timeout and
// timeout+deadlineSlack from now, the real time (time.Now), and counts the
// caller among its users: the call hands it back with leave.
func (d *deadlines) get(timeout time.Duration, now time.Time) *window {
	if w := d.cur.Load(); w != nil && now.Before(w.until) && w.join() {
		return w
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// The current window is never released (only replaced ones are), so
	// joining it here cannot fail.
	if w := d.cur.Load(); w != nil && now.Before(w.until) && w.join() {
		return w
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(timeout+deadlineSlack))
	w := &window{ctx: ctx, cancel: cancel, until: now.Add(deadlineSlack)}
	w.users.Store(1)
	if old := d.cur.Swap(w); old != nil {
		old.replaced.Store(true)
		old.release()
	}
	return w
}

// join counts one more user, unless the window was released.
func (w *window) join() bool {
	for {
		n := w.users.Load()
		if n < 0 {
			return false
		}
		if w.users.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// leave counts one user less, and releases a replaced window that has no
// user left.
func (w *window) leave() {
	if w.users.Add(-1) == 0 && w.replaced.Load() {
		w.release()
	}
}

// release cancels the context of a window without users, once (whoever
// sees the count at zero first: the last user to leave a replaced window,
// or get replacing a window nobody uses).
func (w *window) release() {
	if w.users.CompareAndSwap(0, -1) {
		w.cancel()
	}
}

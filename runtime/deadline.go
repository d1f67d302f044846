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
type window struct {
	ctx context.Context
	// cancel is kept so the context can be released; its timer releases it
	// at the deadline anyway.
	cancel context.CancelFunc
	// until is the last start time that may share this context.
	until time.Time
}

// get returns a context that expires between timeout and
// timeout+deadlineSlack from now, the real time (time.Now).
func (d *deadlines) get(timeout time.Duration, now time.Time) context.Context {
	if w := d.cur.Load(); w != nil && now.Before(w.until) {
		return w.ctx
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.cur.Load(); w != nil && now.Before(w.until) {
		return w.ctx
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(timeout+deadlineSlack))
	d.cur.Store(&window{ctx: ctx, cancel: cancel, until: now.Add(deadlineSlack)})
	return ctx
}

package runtime

import (
	"context"
	"net/http/httptrace"
	"sync/atomic"
)

// attemptTrace counts the httptrace events of one attempt. Each attempt has
// its own, so a late event from an earlier attempt (the Transport finishing a
// body write after the server already answered) cannot be mistaken for a
// replay in the next one. The first attempt's lives inside the call, so the
// happy path allocates only its hook closures.
type attemptTrace struct {
	trace httptrace.ClientTrace
	// gets counts GetConn events, writes WroteRequest events.
	gets, writes atomic.Int32
	// hops are the redirects followed, in order (set by CheckRedirect, on
	// the calling goroutine); a pointer keeps the call's state small for
	// the usual call, which follows none.
	hops *[]hop
}

// bind installs the hooks. GetConn is only needed for a doer that is not
// known to trace: its first event proves that it does.
func (t *attemptTrace) bind(probe bool) {
	if probe {
		t.trace.GetConn = func(string) { t.gets.Add(1) }
	}
	t.trace.WroteRequest = func(httptrace.WroteRequestInfo) { t.writes.Add(1) }
}

// attemptContext returns the trace and the context for the next attempt,
// and makes that trace the call's current one.
func (c *call) attemptContext() (*attemptTrace, context.Context) {
	t, ctx := &c.first, c.tctx
	if c.sends > 0 {
		t = &attemptTrace{}
		t.bind(!c.r.traced)
		ctx = httptrace.WithClientTrace(&c.ctx, &t.trace)
	}
	c.current.Store(t)
	return t, ctx
}

// ownsTrace reports whether tr is the trace of the attempt c is running, so
// that a call nested under that attempt does not chain its hooks to it.
func (c *call) ownsTrace(tr *httptrace.ClientTrace) bool {
	t := c.current.Load()
	return t != nil && &t.trace == tr
}

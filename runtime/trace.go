package runtime

import (
	"context"
	"net/http/httptrace"
	"sync/atomic"
	"time"
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
	// more is what few attempts need, behind a pointer that keeps the
	// call's state small.
	more *traceMore
}

// traceMore is an attempt's less common state.
type traceMore struct {
	// hops are the redirects followed, in order (set by CheckRedirect, on
	// the calling goroutine).
	hops []hop
	// added is kept in the first attempt's trace only, which lives as long
	// as the call: what the request editors added to any of its requests.
	// names backs its first header names: one allocation for both.
	added added
	names [4]string
	// pristine is kept in the first attempt's trace only too: where every
	// later run of the request editors starts.
	pristine pristine
	// creds are the credentials each source returned for the latest
	// attempt (RefusedCredential), in the first attempt's trace only.
	creds []usedCredential
	// journal is the id of the call's Journal entry, in the first
	// attempt's trace only ("" when the call is not recorded).
	journal string
	// resend: the call is a Runner.Resend, whose entry the reconciler
	// settles; the call stores its attempts only.
	resend bool
	// hold renews the call's hold on its entry while it runs (a
	// JournalHolder), in the first attempt's trace only.
	hold *journalHold
}

// moreState returns t.more, made on first use.
func (t *attemptTrace) moreState() *traceMore {
	if t.more == nil {
		t.more = new(traceMore)
	}
	return t.more
}

// bind installs the hooks. GetConn is only needed for a doer that is not
// known to trace: its first event proves that it does.
func (t *attemptTrace) bind(probe bool) {
	if probe {
		t.trace.GetConn = func(string) { t.gets.Add(1) }
	}
	t.trace.WroteRequest = func(httptrace.WroteRequestInfo) { t.writes.Add(1) }
}

// firstContext returns the first attempt's context: the call's, carrying
// the first attempt's trace. When the call's context holds no trace of its
// own (the caller's, which the attempt's must call too), that is what
// httptrace.WithClientTrace would make, a context.WithValue, but without
// its allocation: the call itself answers, as a firstAttemptCtx.
func (c *call) firstContext() context.Context {
	if httptrace.ContextClientTrace(&c.ctx) != nil {
		return httptrace.WithClientTrace(&c.ctx, &c.first.trace)
	}
	return (*firstAttemptCtx)(c)
}

// firstAttemptCtx is a call seen as its first attempt's context: the
// call's context (callContext) with httptrace's key answered by the first
// attempt's trace, as the context.WithValue made by
// httptrace.WithClientTrace answers it. Its trace has none of the hooks
// (DNS, connect) for which WithClientTrace adds a second value.
type firstAttemptCtx call

// clientTraceKey is the key httptrace stores a ClientTrace under (its type
// is unexported), caught once by asking a probe context for a trace.
var clientTraceKey = func() any {
	p := keyProbe{Context: context.Background()}
	httptrace.ContextClientTrace(&p)
	return p.key
}()

// keyProbe is a context that notes the key it is asked for.
type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Value(key any) any {
	p.key = key
	return nil
}

// Value answers httptrace's key with the first attempt's trace and asks
// the call's context for any other.
func (f *firstAttemptCtx) Value(key any) any {
	if key == clientTraceKey {
		return &f.first.trace
	}
	return f.ctx.Value(key)
}

// Deadline, Done and Err are the call context's.
func (f *firstAttemptCtx) Deadline() (time.Time, bool) { return f.ctx.Deadline() }
func (f *firstAttemptCtx) Done() <-chan struct{}       { return f.ctx.Done() }
func (f *firstAttemptCtx) Err() error                  { return f.ctx.Err() }

// attemptContext returns the trace and the context for the next attempt,
// and makes that trace the call's current one. A hedge always gets a trace
// of its own: the first attempt's may still be counting its writes.
func (c *call) attemptContext(hedge bool) (*attemptTrace, context.Context) {
	if c.sends == 0 && !hedge {
		c.current.Store(&c.first)
		return &c.first, c.firstContext()
	}
	t := &attemptTrace{}
	t.bind(!c.r.traced)
	ctx := httptrace.WithClientTrace(&c.ctx, &t.trace)
	c.current.Store(t)
	return t, ctx
}

// ownsTrace reports whether tr is the trace of the attempt c is running, so
// that a call nested under that attempt does not chain its hooks to it.
func (c *call) ownsTrace(tr *httptrace.ClientTrace) bool {
	t := c.current.Load()
	return t != nil && &t.trace == tr
}

package runtime

import (
	"context"
	"net/http/httptrace"
	"time"
)

// engineKey marks a context inside which the engine is running attempts.
type engineKey struct{}

// callContext is the context a call's attempts run under: the caller's
// context (or one derived with the policy deadline, or the Runner's shared
// deadline), which also answers engineKey with its call, so that a call made
// under it (a nested client in an editor or a doer) makes one attempt only.
//
// It is a field of call, not a context.WithValue over the caller's context,
// which would be one more allocation per call for the marker alone.
// Measured with go test -run XXX -bench 'HappyPath|EngineOverhead' -benchmem
// ./runtime/ (6 runs, 2 shared cores) against the same engine using
// context.WithValue(&c.ctx, engineKey{}, c) for the marker: this saves 1
// allocation and 48 B per call (EngineOverhead get: 6 allocs, 1,216 B
// instead of 7, 1,264 B; keyed POST: 13, 1,728 B instead of 14, 1,776 B; the
// loopback HappyPath calls: 69 instead of 70). Time differs by less than the
// noise of the machine (median 1.44 against 1.53 us per GET without the
// network, 2.24 against 2.11 us per keyed POST): about 0.1% of a loopback
// round trip. It stays because the shared deadline and hiding an enclosing
// call's trace (Value, below) need a context of the engine's own anyway, so
// answering the marker there costs nothing extra to read.
type callContext struct {
	context.Context
	// call is the call this context belongs to (its engineKey value).
	call *call
	// shared, when set, is the shared deadline window of a call whose own
	// context can never be cancelled: Done, Err and Deadline come from its
	// context. The call leaves it when it ends (leaveShared).
	shared *window
}

// Value answers the engine marker and hides the enclosing call's trace, so a
// nested call's sends are not counted as the outer call's replays.
func (x *callContext) Value(key any) any {
	if _, ok := key.(engineKey); ok {
		return x.call
	}
	v := x.Context.Value(key)
	if v == nil && x.shared != nil {
		// The shared context holds no values of its own; what it answers is
		// its cancelCtx, so that contexts derived from this call (net/http
		// derives one per request) register with it instead of starting a
		// goroutine to watch Done.
		return x.shared.ctx.Value(key)
	}
	if outer := x.call.outer; outer != nil {
		if t, ok := v.(*httptrace.ClientTrace); ok && outer.ownsTrace(t) {
			return nil
		}
	}
	return v
}

// Deadline is the shared deadline's, or the call context's.
func (x *callContext) Deadline() (time.Time, bool) {
	if x.shared != nil {
		return x.shared.ctx.Deadline()
	}
	return x.Context.Deadline()
}

// Done is the shared deadline's, or the call context's.
func (x *callContext) Done() <-chan struct{} {
	if x.shared != nil {
		return x.shared.ctx.Done()
	}
	return x.Context.Done()
}

// Err is the shared deadline's, or the call context's.
func (x *callContext) Err() error {
	if x.shared != nil {
		return x.shared.ctx.Err()
	}
	return x.Context.Err()
}

// leaveShared hands the call's shared deadline window back: once a newer
// window replaced it and its last call left, its context is cancelled, so a
// context kept from a finished call ends then, as a call's own timeout
// context ends when the call does (call.release).
func (x *callContext) leaveShared() {
	if x.shared != nil {
		x.shared.leave()
	}
}

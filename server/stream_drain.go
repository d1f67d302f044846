package idemsrv

import (
	"context"
	"errors"
	"net/http"

	"github.com/idemgen/idemgen/runtime/problem"
)

// ErrDraining is the cause of a stream's Context and the error of its Send
// once the server drains (WithStreamDrain).
var ErrDraining = errors.New("idemsrv: the server is draining its streams")

// WithStreamDrain ends every stream when ctx is done, so that
// http.Server.Shutdown, which waits for open requests, is not held up by
// streams that would run for hours. Wire it to the shutdown:
//
//	drain, stop := context.WithCancel(context.Background())
//	srv, _ := api.NewServer(h, idemsrv.WithStreamDrain(drain))
//	hs := &http.Server{Handler: srv}
//	hs.RegisterOnShutdown(stop)
//
// A started stream is then cut, not ended, so its client resumes it (with
// Last-Event-ID, through the load balancer, on another instance); its
// Context is cancelled with ErrDraining as cause and Send returns
// ErrDraining, so its handler returns. A stream request that has not
// started is answered 503 with Retry-After: 1.
func WithStreamDrain(ctx context.Context) Option {
	return func(c *config) { c.drain = ctx }
}

// drainable derives a stream's context from the request's, cancelled with
// ErrDraining when the server drains; the function it returns releases it.
func drainable(drain context.Context, ctx context.Context) (context.Context, func()) {
	if drain == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	if drain.Err() != nil {
		// AfterFunc would cancel in a goroutine of its own, later.
		cancel(ErrDraining)
		return ctx, func() {}
	}
	stop := context.AfterFunc(drain, func() { cancel(ErrDraining) })
	return ctx, func() { stop(); cancel(nil) }
}

// draining reports whether ctx ended because the server drains.
func draining(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrDraining)
}

// writeDraining answers a stream request that did not start before the
// server began to drain.
func writeDraining(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	problem.Write(w, http.StatusServiceUnavailable, problem.Draining,
		"the server is shutting down; retry, and another instance will answer")
}

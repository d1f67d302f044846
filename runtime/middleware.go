package runtime

import "net/http"

// Middleware wraps one attempt's send. It runs inside the retry loop, once
// for every attempt, after the idempotency key, the credentials and the
// request editors have set the request: it can read and change the request,
// call next (or not), and observe or replace the response. An error it
// returns is judged as a transport error: a request next never saw was not
// sent and may be sent again; one next sent may have reached the server, so
// an unsafe operation stops with ErrOutcomeUnknown.
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// MiddlewareNext sends the request on: to the next middleware, and after
// the last one to the client's Doer.
type MiddlewareNext func(req *http.Request) (*http.Response, error)

// middlewares is WithMiddleware's option: given to the client it adds
// middleware to every call, given to a call it adds middleware inside the
// client's (client-level middleware sees the request first and the
// response last).
type middlewares []Middleware

func (m middlewares) applyRunner(r *Runner) {
	r.defaults.middleware = append(r.defaults.middleware, m...)
}

func (m middlewares) applyCall(c *callConfig) {
	c.middleware = append(c.middleware, m...)
}

// WithMiddleware adds middleware run on every attempt (see Middleware), at
// the client level (NewClient) or for one call. The client's run outside
// the call's, each list in the order given. A nil middleware is skipped.
func WithMiddleware(mw ...Middleware) ClientCallOption {
	kept := make(middlewares, 0, len(mw))
	for _, m := range mw {
		if m != nil {
			kept = append(kept, m)
		}
	}
	return kept
}

// do sends one attempt's request through the call's middleware to the
// Doer. reached reports whether the Doer was called: a middleware that
// returns before calling next sent nothing.
func (c *call) do(req *http.Request) (*http.Response, bool, error) {
	if len(c.cfg.middleware) == 0 {
		resp, err := c.r.doer.Do(req)
		return resp, true, err
	}
	return c.doThrough(req)
}

// doThrough is do with middleware; apart, so that a call without any
// allocates nothing for the chain's state.
func (c *call) doThrough(req *http.Request) (*http.Response, bool, error) {
	// The header is the call's, which every attempt starts from: what a
	// middleware sets must not leak into the next attempt.
	req.Header = req.Header.Clone()
	reached := false
	resp, err := chain(c.cfg.middleware, req, func(r *http.Request) (*http.Response, error) {
		reached = true
		return c.r.doer.Do(r)
	})
	return resp, reached, err
}

// chain runs mw[0] with the rest of the chain as its next.
func chain(mw []Middleware, req *http.Request, last MiddlewareNext) (*http.Response, error) {
	if len(mw) == 0 {
		return last(req)
	}
	return mw[0](req, func(r *http.Request) (*http.Response, error) { return chain(mw[1:], r, last) })
}

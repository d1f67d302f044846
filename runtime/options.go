package runtime

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Option configures a Runner.
type Option interface{ applyRunner(*Runner) }

// CallOption configures one call.
type CallOption interface{ applyCall(*callConfig) }

// RequestEditor edits every attempt's request just before it is sent, for
// example to add an Authorization header. An error ends the call without
// sending.
type RequestEditor func(ctx context.Context, req *http.Request) error

// destination holds the options that send a call elsewhere than the URL
// its parameters built.
type destination struct {
	// base is WithBaseURL's server, baseErr its parse error.
	base    *url.URL
	baseErr error
	// next is a link pager's next-page URL (pager_link.go).
	next string
}

// withDest returns a copy of c's destination (a zero one when it has none)
// for an option to edit: options are shared by every call they are given
// to, so none edits another's.
func (c *callConfig) withDest() *destination {
	d := new(destination)
	if c.dest != nil {
		*d = *c.dest
	}
	c.dest = d
	return d
}

// callConfig holds the per-call options; a Runner holds the client's
// defaults in one (options that are both kinds), which a call starts from.
type callConfig struct {
	class Class
	// maxAttempts and timeout override the policy's when set (timeout < 0:
	// none). maxAttempts is an int32 beside noRetry to keep the struct
	// small: a call with options holds its own copy (withOptions).
	maxAttempts int32
	noRetry     bool
	log         *[]Attempt
	headers     []string // name, value pairs
	timeout     time.Duration
	// idle overrides Policy.IdleTimeout when set (< 0: none).
	idle time.Duration
	// dest changes where the call goes; a pointer, since few calls have
	// one and the call state must stay within its size class.
	dest   *destination
	query  []string // name, value pairs
	fields []jsonField
	resp   **http.Response
	// middleware wraps every attempt's send, the client's first.
	middleware []Middleware
	// hedge is WithHedging's policy; nil: not hedged.
	hedge *HedgePolicy
}

type runnerFunc func(*Runner)

func (f runnerFunc) applyRunner(r *Runner) { f(r) }

type callFunc func(*callConfig)

func (f callFunc) applyCall(c *callConfig) { f(c) }

// WithHTTPClient sends requests with d (default http.DefaultClient). Any
// value with Do(*http.Request) works; when it reports no httptrace events (a
// doer that does not go through net/http's Transport), every failure counts
// as an unknown outcome, the safe reading.
func WithHTTPClient(d Doer) Option {
	return runnerFunc(func(r *Runner) {
		if d != nil {
			r.doer = d
		}
	})
}

// WithRequestEditor adds an editor run on every attempt's request, in the
// order the options were given.
func WithRequestEditor(f RequestEditor) Option {
	return runnerFunc(func(r *Runner) {
		if f != nil {
			r.editors = append(r.editors, f)
		}
	})
}

// WithObserver adds an observer that receives one Attempt per send.
func WithObserver(o Observer) Option {
	return runnerFunc(func(r *Runner) {
		if o != nil {
			r.observers = append(r.observers, o)
		}
	})
}

// WithPolicy replaces the policy of class c. Its zero fields keep the
// class's defaults (DefaultPolicy), so the ceilings are always on.
func WithPolicy(c Class, p Policy) Option {
	return runnerFunc(func(r *Runner) { r.policies[c.valid()] = p.withDefaults(DefaultPolicy(c)) })
}

// WithMaxBody sets the largest success body the engine reads, for both
// classes (Policy.MaxBody; default 32 MiB). A larger body ends the call with
// a *BodyTooLargeError.
func WithMaxBody(n int64) Option {
	return runnerFunc(func(r *Runner) { r.maxBody = n })
}

// WithBudget replaces the retry budget of class c.
func WithBudget(c Class, b Budget) Option {
	return runnerFunc(func(r *Runner) { r.budgets[c.valid()] = b })
}

// WithClock replaces the clock used for waits and deadlines (tests).
func WithClock(c Clock) Option {
	return runnerFunc(func(r *Runner) {
		if c != nil {
			r.clock = c
		}
	})
}

// WithRandom replaces the jitter source. f returns a float in [0, 1) and must
// be safe for concurrent use when the Runner is; the default is
// math/rand/v2's Float64.
func WithRandom(f func() float64) Option {
	return runnerFunc(func(r *Runner) {
		if f != nil {
			r.rand = f
		}
	})
}

// noRetry is both a Runner option and a call option.
type noRetry struct{}

func (noRetry) applyRunner(r *Runner)   { r.noRetry = true }
func (noRetry) applyCall(c *callConfig) { c.noRetry = true }

// NoRetry makes one attempt per call, for callers that own retries (a queue
// worker whose queue redelivers). It works as a Runner option (every call)
// and as a call option (one call). A transport replay still counts.
func NoRetry() interface {
	Option
	CallOption
} {
	return noRetry{}
}

// WithClass picks the call's class (default Interactive): its policy and its
// budget.
func WithClass(c Class) CallOption {
	return callFunc(func(cc *callConfig) { cc.class = c.valid() })
}

// WithAttemptLog stores the call's attempt records in *dst when the call
// returns, on success and on error.
func WithAttemptLog(dst *[]Attempt) CallOption {
	return callFunc(func(cc *callConfig) { cc.log = dst })
}

// WithHeader sets one request header for this call, replacing the value
// the method set: WithHeader("Accept", "text/csv") overrides the Accept a
// generated method sends (the media types its operation declares).
func WithHeader(name, value string) CallOption {
	return callFunc(func(cc *callConfig) { cc.headers = append(cc.headers, name, value) })
}

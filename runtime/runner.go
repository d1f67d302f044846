package runtime

import (
	"context"
	"math/rand/v2"
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/idemgen/idemgen/runtime/internal/shared"
)

// Doer is what sends requests; *http.Client satisfies it.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Request is a prepared request; the engine builds a fresh *http.Request per
// attempt from it. Generated code gets it from wire.Builder.Build; both
// packages name the same type (runtime/internal/shared), so the engine does
// not import the codec. Its fields: Method; URL (absolute); Header (may be
// nil, Content-Type set when there is a body; the engine adds the key header
// and call headers to it, so do not share one Header between concurrent
// calls); Body (nil for none; every attempt sends these same bytes); Stream
// (a streamed body instead of Body: fixed pieces and readers, rebuilt per
// attempt, see File); Server (the server URL the URL was built on); Key (the
// idempotency key of the call, "" makes the engine generate one with NewKey;
// keyed operations send it in their key header, and every call's errors and
// attempt records carry it).
type Request = shared.Request

// NewKey returns a fresh idempotency key: a random (version 4) UUID. One key
// is one business intent: make a new key for a deliberate new operation,
// reuse it only to retry the same intent.
func NewKey() string { return uuid.NewString() }

// Runner runs the attempts of calls. It is safe for concurrent use by any
// number of goroutines. Two Runners share nothing (not even their retry
// budgets) but the adaptive throttle of a host they both call, which is the
// process's (WithAdaptiveThrottle). Make one with NewRunner; the zero
// Runner is not usable.
type Runner struct {
	doer      Doer
	editors   []RequestEditor
	observers []Observer
	policies  [2]Policy
	budgets   [2]Budget
	buckets   [2]*bucket
	clock     Clock
	rand      func() float64
	noRetry   bool
	// maxBody overrides the policies' MaxBody when set (WithMaxBody), and
	// maxBuffer their MaxBuffer (WithBufferLimit).
	maxBody, maxBuffer int64
	// defaults holds the client's defaults of the call options.
	defaults callConfig
	// userAgent is the default User-Agent header; requestIDs the headers
	// searched for a request id beyond the standard ones.
	userAgent  string
	requestIDs []string
	// userAgentValue is userAgent as a header value, made once: every
	// call's header shares it (its capacity is its length, so an append
	// copies it).
	userAgentValue []string
	// sources are the credential sources, by security scheme.
	sources []credentialSource
	// traced: the doer is known to report httptrace events (net/http's
	// Transport), so the engine need not check that it does per attempt.
	traced    bool
	deadlines [2]deadlines
	// throttles is the Runner's handle on the process-wide adaptive
	// throttles (throttle.go): the one state Runners share.
	throttles throttles
	// journal records keyed and unsafe calls (WithJournal).
	journal Journal
	// sketches are the recent latencies of hedged operations
	// (hedge_sketch.go), for HedgePolicy{After: 0}.
	sketches sketches
	// hedgeTick, when set (by tests), hears whether each hedge timer's
	// tick sent a hedge.
	hedgeTick func(sent bool)
}

// NewRunner returns a Runner with the default policies and budgets of both
// classes, http.DefaultClient, the system clock and math/rand/v2 jitter,
// changed by opts.
func NewRunner(opts ...Option) *Runner {
	r := &Runner{
		doer:     http.DefaultClient,
		policies: [2]Policy{DefaultPolicy(Interactive), DefaultPolicy(Background)},
		budgets:  [2]Budget{DefaultBudget(Interactive), DefaultBudget(Background)},
		clock:    systemClock{},
		rand:     rand.Float64,
	}
	r.throttles.settings = throttleSettings{k: DefaultThrottleK, window: DefaultThrottleWindow}
	for _, o := range opts {
		if o != nil {
			o.applyRunner(r)
		}
	}
	if hc, ok := r.doer.(*http.Client); ok {
		r.doer = followRedirects(hc)
	}
	r.traced = tracesRequests(r.doer)
	if r.userAgent != "" {
		r.userAgentValue = []string{r.userAgent}[:1:1]
	}
	r.buckets = [2]*bucket{newBucket(r.budgets[Interactive]), newBucket(r.budgets[Background])}
	return r
}

// BudgetLeft reports the tokens left in the retry budget of class c.
func (r *Runner) BudgetLeft(c Class) float64 { return r.buckets[c.valid()].left() }

// Do runs the attempts of one call of op, following the decision table of
// the package documentation.
//
// On success (a final status below 400) it returns the response with its
// body already read within the attempt (at most Policy.MaxBody) and held in
// memory; the generated decoders take it without a copy. A final status of 400 or more
// returns a *StatusError (body read up to MaxErrorBody and closed) whose
// Reason is the sentinel of the rule or limit that ended the call, or nil for
// a plain status such as 404. A call that ends without a usable response
// returns a *CallError. Both carry the key and the attempt records.
func (r *Runner) Do(ctx context.Context, op *Operation, req *Request, opts ...CallOption) (*http.Response, error) {
	c := r.newCall(op, req, opts)
	if err := c.init(ctx); err != nil {
		return nil, err
	}
	if c.journaled() {
		if err := c.journalStart(ctx); err != nil {
			c.refuse(err)
			return nil, err
		}
	}
	resp, err := c.run()
	c.ctx.leaveShared()
	return resp, err
}

// newCall makes the state of one call of op with its options applied.
func (r *Runner) newCall(op *Operation, req *Request, opts []CallOption) *call {
	c := &call{r: r, op: op, cfg: &r.defaults, req: req}
	c.ctx.call = c
	if req == nil {
		c.req = &noRequest
	}
	if len(opts) > 0 {
		c.cfg = withOptions(r.defaults, opts)
	}
	return c
}

// withOptions returns a call's own configuration: the defaults changed by
// opts. A call without options reads the Runner's defaults in place, which
// keeps a callConfig out of every call state (see TestCallStateSizeClass).
func withOptions(cfg callConfig, opts []CallOption) *callConfig {
	// The defaults' slices are shared: a call's appends must copy them.
	cfg.headers, cfg.query, cfg.fields = slices.Clip(cfg.headers), slices.Clip(cfg.query), slices.Clip(cfg.fields)
	cfg.middleware = slices.Clip(cfg.middleware)
	for _, o := range opts {
		if o != nil {
			o.applyCall(&cfg)
		}
	}
	return &cfg
}

// tracesRequests reports whether d is an *http.Client over an
// *http.Transport, which fires httptrace events for every connection and
// write. Other doers are checked at run time (a GetConn event).
func tracesRequests(d Doer) bool {
	c, ok := d.(*http.Client)
	if !ok {
		return false
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	_, ok = rt.(*http.Transport)
	return ok
}

// BuildFailed returns the error of a call whose request could not be built
// (wire.Builder.Build failed: a rejected path value, a body that does not
// encode): a *CallError naming op and the intent's key, the caller's or a
// fresh one, with no attempts, since nothing was sent. Like every error of a
// generated method, it carries a key (KeyOf).
func BuildFailed(op *Operation, key string, err error) error {
	if key == "" {
		key = NewKey()
	}
	return &CallError{Operation: op.ID, Key: key, Err: err}
}

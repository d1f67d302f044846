package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/shared"
)

// ClientCallOption is an option that works both ways: given to the client
// (NewClient, NewRunner) it sets the default of every call, given to a call
// it overrides that default for the call. Precedence: call > client >
// policy default.
type ClientCallOption interface {
	Option
	CallOption
}

// both is a ClientCallOption: it edits the Runner's defaults or the call's.
type both func(*callConfig)

func (f both) applyRunner(r *Runner)   { f(&r.defaults) }
func (f both) applyCall(c *callConfig) { f(c) }

// WithMaxAttempts sets the most sends of a call (the first included),
// instead of the policy's MaxAttempts. n < 1 keeps the policy's.
func WithMaxAttempts(n int) ClientCallOption {
	m := int32(min(n, math.MaxInt32))
	return both(func(c *callConfig) { c.maxAttempts = m })
}

// WithTimeout sets a call's total deadline instead of the policy's Timeout
// (a negative d: none). A deadline of the call's context still applies
// when it is earlier.
func WithTimeout(d time.Duration) ClientCallOption {
	return both(func(c *callConfig) { c.timeout = d })
}

// WithIdleTimeout sets how long a live response (an event stream, a
// download) may stay silent once its headers are in, instead of the
// policy's IdleTimeout (a negative d: no limit). Each read of the body must
// make progress within d; the call's deadline covers the headers only.
func WithIdleTimeout(d time.Duration) ClientCallOption {
	return both(func(c *callConfig) { c.idle = d })
}

// WithBaseURL sends to base instead of the server the client was made for:
// the operation's path is appended to base's, as NewClient's serverURL. A
// base that does not parse as an absolute URL fails the call unsent.
func WithBaseURL(base string) ClientCallOption {
	u, err := url.Parse(strings.TrimSuffix(base, "/"))
	if err == nil && (u.Scheme == "" || u.Host == "") {
		err = fmt.Errorf("base URL %q is not absolute", base)
	}
	return both(func(c *callConfig) {
		d := c.withDest()
		d.base, d.baseErr = u, err
	})
}

// WithQuery adds the query parameter name=value to the request (a
// parameter newer than the spec, say), after the declared ones.
func WithQuery(name, value string) ClientCallOption {
	return both(func(c *callConfig) { c.query = append(c.query, name, value) })
}

// jsonField is one WithJSONField member.
type jsonField struct {
	name  string
	value any
}

// WithJSONField sets the member name of a JSON object request body to
// value (a field newer than the spec), replacing a member of that name.
// The merged body is encoded once, before the first attempt; a call whose
// body is not a JSON object fails unsent.
func WithJSONField(name string, value any) ClientCallOption {
	return both(func(c *callConfig) { c.fields = append(c.fields, jsonField{name, value}) })
}

// WithResponse stores the call's final response in *dst when the call
// returns: its status and headers, on success and on a status error (nil
// when no response arrived). Its body is already consumed (http.NoBody);
// the result or the *StatusError holds it.
func WithResponse(dst **http.Response) CallOption {
	return callFunc(func(c *callConfig) { c.resp = dst })
}

// WithBufferLimit sets the most of a plain io.Reader request body the
// engine buffers to resend it (Policy.MaxBuffer, default 8 MiB), for both
// classes.
func WithBufferLimit(n int64) Option {
	return runnerFunc(func(r *Runner) { r.maxBuffer = n })
}

// WithUserAgent sets the User-Agent header of every request (generated
// clients default it to "idemgen/<Version> (<package>)"); a WithHeader
// call option still overrides it.
func WithUserAgent(ua string) Option {
	return runnerFunc(func(r *Runner) { r.userAgent = ua })
}

// Version is the idemgen runtime's version, named in the default
// User-Agent of generated clients.
const Version = "0.12.0"

// UserAgent is the default User-Agent of the generated package pkg.
func UserAgent(pkg string) string { return "idemgen/" + Version + " (" + pkg + ")" }

// requestIDHeaders are the headers a StatusError's RequestID is read from,
// in order, before those WithRequestIDHeaders adds.
// They are written in canonical form and looked up as such: Header.Get
// would canonicalize "X-GitHub-Request-Id" anew, allocating, on every
// failed call.
var requestIDHeaders = []string{"Request-Id", "X-Request-Id", "X-Github-Request-Id"}

// WithRequestIDHeaders adds headers a *StatusError's RequestID is read
// from, after Request-Id, X-Request-Id and X-GitHub-Request-Id.
func WithRequestIDHeaders(names ...string) Option {
	return runnerFunc(func(r *Runner) {
		for _, n := range names {
			r.requestIDs = append(r.requestIDs, http.CanonicalHeaderKey(n))
		}
	})
}

// requestID is the first request id header of h, whose names are
// canonical, as net/http stores them.
func (r *Runner) requestID(h http.Header) string {
	for _, list := range [2][]string{requestIDHeaders, r.requestIDs} {
		for _, n := range list {
			if v := h[n]; len(v) > 0 && v[0] != "" {
				return v[0]
			}
		}
	}
	return ""
}

// errNotJSONObject reports WithJSONField on a body that is no JSON object.
var errNotJSONObject = errors.New("WithJSONField: the request body is not a JSON object")

// ownPolicy makes the call's policy its own copy, to change it.
func (c *call) ownPolicy() *Policy {
	if c.pol == &c.r.policies[c.cfg.class.valid()] {
		p := *c.pol
		c.pol = &p
	}
	return c.pol
}

// applyCallConfig applies the call options that change the request or the
// policy, once, before the first attempt.
func (c *call) applyCallConfig() error {
	if c.cfg.maxAttempts > 0 {
		c.ownPolicy().MaxAttempts = int(c.cfg.maxAttempts)
	}
	if c.cfg.timeout < 0 {
		// No deadline: every reader of cfg.timeout takes a negative one
		// as none (cfg may be the Runner's defaults: it is not written).
		c.ownPolicy().Timeout = 0
	}
	if d := c.cfg.dest; d != nil && d.baseErr != nil {
		return d.baseErr
	}
	if (c.cfg.dest != nil && c.cfg.dest.base != nil) || len(c.cfg.query) > 0 {
		c.ownRequest().URL = c.rebase()
	}
	if c.cfg.dest != nil {
		if err := c.followNext(); err != nil {
			return err
		}
	}
	if len(c.cfg.fields) > 0 {
		if err := c.mergeFields(); err != nil {
			return err
		}
	}
	if c.req.Stream != nil {
		return c.prepareStream()
	}
	return nil
}

// rebase returns the request's URL on the WithBaseURL server, with the
// WithQuery parameters added.
func (c *call) rebase() *url.URL {
	u := *c.req.URL
	if d := c.cfg.dest; d != nil && d.base != nil {
		b := d.base
		rel := u.EscapedPath()
		if s := c.req.Server; s != nil {
			rel = strings.TrimPrefix(rel, strings.TrimSuffix(s.EscapedPath(), "/"))
		}
		u.Scheme, u.Host, u.User = b.Scheme, b.Host, b.User
		u.RawPath = b.EscapedPath() + rel
		if p, err := url.PathUnescape(u.RawPath); err == nil {
			u.Path = p
		}
	}
	for i := 0; i+1 < len(c.cfg.query); i += 2 {
		kv := url.QueryEscape(c.cfg.query[i]) + "=" + url.QueryEscape(c.cfg.query[i+1])
		if u.RawQuery != "" {
			kv = u.RawQuery + "&" + kv
		}
		u.RawQuery = kv
	}
	return &u
}

// mergeFields merges the WithJSONField members into the JSON object body.
func (c *call) mergeFields() error {
	if c.req.Stream != nil || !shared.IsJSON(c.req.Header.Get("Content-Type")) {
		return errNotJSONObject
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(c.req.Body, &m); err != nil || m == nil {
		return errNotJSONObject
	}
	for _, f := range c.cfg.fields {
		v, err := json.Marshal(f.value)
		if err != nil {
			return fmt.Errorf("WithJSONField %q: %w", f.name, err)
		}
		m[f.name] = v
	}
	b, err := json.Marshal(m)
	c.ownRequest().Body = b
	return err
}

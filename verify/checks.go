package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// staleETag is an entity tag no server issued.
const staleETag = `"idemgen-verify-stale"`

// ifMatchStale: an operation that declares If-Match refuses a stale ETag
// with 412 instead of overwriting.
func (c *opCheck) ifMatchStale(ctx context.Context) {
	var param *ir.Parameter
	for _, p := range c.op.Params {
		if p.In == ir.InHeader && strings.EqualFold(p.Name, "If-Match") {
			param = p
		}
	}
	if param == nil {
		return
	}
	so := sendOpts{ifMatch: staleETag}
	if c.op.Retry.Safety == ir.Keyed {
		so.key = idemrt.NewKey()
	}
	ex := c.send(ctx, so)
	switch {
	case ex.err == nil && ex.status == http.StatusPreconditionFailed:
		c.add(CheckIfMatchStale, param.Source, Pass, "a stale ETag got 412")
	case ex.success():
		c.add(CheckIfMatchStale, param.Source, Fail, "a stale ETag was accepted (%d): a silent overwrite; want 412", ex.status)
	case ex.err == nil && ex.status == http.StatusNotFound:
		c.add(CheckIfMatchStale, param.Source, Skip, "no resource at %s: give its path parameters in --fixtures", c.op.Path)
	default:
		c.add(CheckIfMatchStale, param.Source, Fail, "a stale ETag got %s; want 412", ex)
	}
}

// authStatus: a request without credentials gets 401 or 403, never a
// status the operation's clients retry.
func (c *opCheck) authStatus(ctx context.Context) {
	if !needsCredentials(c.op) {
		return
	}
	so := sendOpts{anon: true}
	if c.op.Retry.Safety == ir.Keyed {
		so.key = idemrt.NewKey()
	}
	ex := c.send(ctx, so)
	src := c.op.Retry.RetryableSource
	switch {
	case ex.err != nil:
		c.add(CheckAuthStatus, c.op.Source, Fail, "without credentials: %s", ex)
	case ex.status == 401 || ex.status == 403:
		if c.op.Retry.Retryable.Contains(ex.status) {
			c.add(CheckAuthStatus, src, Fail, "without credentials: %d, which x-retryable-status lists: clients would repeat it with the same credentials", ex.status)
			return
		}
		c.add(CheckAuthStatus, c.op.Source, Pass, "without credentials: %d", ex.status)
	case ex.success():
		c.add(CheckAuthStatus, c.op.Source, Fail, "without credentials: %d, the operation ran unauthenticated", ex.status)
	case c.op.Retry.Retryable.Contains(ex.status):
		c.add(CheckAuthStatus, src, Fail, "without credentials: %d, a status clients retry (with the same missing credentials); want 401 or 403", ex.status)
	default:
		c.add(CheckAuthStatus, c.op.Source, Fail, "without credentials: %s; want 401 or 403", ex)
	}
}

// needsCredentials reports whether every alternative of op's security
// names a scheme (an empty requirement makes credentials optional).
func needsCredentials(op *ir.Operation) bool {
	if len(op.Security) == 0 {
		return false
	}
	for _, r := range op.Security {
		if len(r.Schemes) == 0 {
			return false
		}
	}
	return true
}

// judgeAnswers reads every answer the checks got: a 429 or 503 must carry
// a Retry-After the runtime reads, and a server's own retry signal must
// agree with x-retryable-status.
func (c *opCheck) judgeAnswers() {
	var hints, bad []string
	for _, ex := range c.seen {
		if ex.status != 429 && ex.status != 503 {
			continue
		}
		if _, ok := idemrt.ParseRetryAfter(ex.header, c.v.opts.Now()); ok {
			hints = append(hints, strconv.Itoa(ex.status))
			continue
		}
		bad = append(bad, fmt.Sprintf("%d with Retry-After %q", ex.status, ex.header.Get("Retry-After")))
	}
	switch {
	case len(bad) > 0:
		c.add(CheckRetryAfter, ir.Source{}, Fail, "no wait hint the runtime can read: %s (want delta-seconds or an HTTP-date in the future)", strings.Join(bad, "; "))
	case len(hints) > 0:
		c.add(CheckRetryAfter, ir.Source{}, Pass, "every %s carried a Retry-After the runtime reads", strings.Join(hints, ", "))
	}
	c.judgeRetryable()
}

// judgeRetryable reports the statuses whose server signal (Retry-After,
// Stripe-Should-Retry or X-Should-Retry) says the opposite of
// x-retryable-status.
func (c *opCheck) judgeRetryable() {
	src := c.op.Retry.RetryableSource
	var mismatches, statuses []string
	for _, ex := range c.seen {
		if ex.status < 400 || ex.status == 401 || ex.status == 403 {
			continue // authentication answers are auth-status's
		}
		if st := strconv.Itoa(ex.status); !slices.Contains(statuses, st) {
			statuses = append(statuses, st)
		}
		if m := c.mismatch(ex); m != "" {
			mismatches = append(mismatches, m)
		}
	}
	switch {
	case len(mismatches) > 0:
		c.add(CheckRetryableMismatch, src, Fail, "%s", strings.Join(mismatches, "; "))
	case len(statuses) > 0:
		c.add(CheckRetryableMismatch, src, Pass, "the error statuses seen (%s) agree with x-retryable-status", strings.Join(statuses, ", "))
	}
}

// mismatch describes how one answer's retry signal disagrees with the
// operation's retryable set; "" when it agrees or gives none.
func (c *opCheck) mismatch(ex exchange) string {
	listed := c.op.Retry.Retryable.Contains(ex.status)
	should := strings.ToLower(firstNonEmpty(ex.header.Get("Stripe-Should-Retry"), ex.header.Get("X-Should-Retry")))
	switch {
	case listed && should == "false":
		return fmt.Sprintf("%d is retried by x-retryable-status, but the server says it is final (should-retry: false)", ex.status)
	case listed || ex.status == 429 || ex.status == 403:
		return "" // 429 and a rate-limited 403 are waited out whatever the list says
	case should == "true":
		return fmt.Sprintf("%d is final by x-retryable-status, but the server says to retry it (should-retry: true)", ex.status)
	case ex.header.Get("Retry-After") != "" && !(ex.status == 409 && c.op.Retry.Safety == ir.Keyed):
		return fmt.Sprintf("%d is final by x-retryable-status, but the server sends Retry-After (an \"in progress\" or \"try later\")", ex.status)
	}
	return ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pointerPresent reports whether the RFC 6901 pointer leads to a present,
// non-null value in the JSON body.
func pointerPresent(body []byte, pointer string) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	for _, tok := range jsonpointer.Split(pointer) {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return v != nil
}

// Package verify runs the retry-contract checklist of an API description
// against a running server: what the spec promises with x-idempotent,
// x-retryable-status, x-lookup and If-Match, judged on the server's
// answers. It sends real requests, writes included, through the runtime's
// own transport, one attempt each (the checks judge the server, not the
// client's retries), and returns a Report of typed results that
// cmd/idemgen prints (`idemgen verify`).
package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/idemgen/idemgen/ir"
)

// Verdict is what one check concluded.
type Verdict string

// The verdicts. Only Fail makes a run fail; Info states documented
// behaviour that is not judged, and Skip a check that could not run (the
// message says what it needs).
const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	Info Verdict = "info"
	Skip Verdict = "skip"
)

// The check identifiers, as reports and docs/cli.md name them.
const (
	CheckKeyedReplay        = "keyed-replay"
	CheckKeyedReuse         = "keyed-reuse"
	CheckKeyedConcurrent    = "keyed-concurrent"
	CheckKeyedTTL           = "keyed-ttl"
	CheckUnsafeUnsettleable = "unsafe-unsettleable"
	CheckIfMatchStale       = "if-match-stale"
	CheckRetryAfter         = "retry-after"
	CheckRetryableMismatch  = "retryable-mismatch"
	CheckAuthStatus         = "auth-status"
)

// Result is one check of one operation.
type Result struct {
	// Operation is the operationId.
	Operation string `json:"operation"`
	// Check is one of the Check constants.
	Check string `json:"check"`
	// File, Line and Pointer locate what the check is about in the spec:
	// the extension, parameter or operation.
	File    string  `json:"file"`
	Line    int     `json:"line,omitempty"`
	Pointer string  `json:"pointer"`
	Verdict Verdict `json:"verdict"`
	Message string  `json:"message"`
}

// Report is the outcome of a run: results in operation order (the IR's),
// then check order.
type Report struct {
	Server  string   `json:"server"`
	Results []Result `json:"results"`
}

// Failed reports whether any check failed.
func (r *Report) Failed() bool {
	return slices.ContainsFunc(r.Results, func(x Result) bool { return x.Verdict == Fail })
}

// Count returns how many results have verdict v.
func (r *Report) Count(v Verdict) int {
	n := 0
	for _, x := range r.Results {
		if x.Verdict == v {
			n++
		}
	}
	return n
}

// Input is what a check sends to an operation: its body and parameters.
type Input struct {
	// MediaType is the body's Content-Type; "" sends no body.
	MediaType string
	// Body is the body as a JSON value, encoded as MediaType says (JSON,
	// or a form with bracketed names for nested members).
	Body any
	// Body2 is another body for keyed-reuse; nil derives one from Body by
	// changing one member.
	Body2 any
	// Params holds parameter values by name (path, query and header);
	// parameters not given get a value built from their schema when they
	// are required.
	Params map[string]string
}

// Options configure a run.
type Options struct {
	// Server is the base URL operations' paths are appended to
	// ("http://127.0.0.1:8080/v1").
	Server string
	// Client sends the requests (nil: http.DefaultClient).
	Client *http.Client
	// Credentials adds the credentials to a request; auth-status sends
	// without them.
	Credentials func(*http.Request)
	// Secrets are credential values never to appear in a message: any
	// occurrence (a server echoing a header) is replaced.
	Secrets []string
	// Operations limits the run to these operationIds; nil runs every one.
	Operations []string
	// Inputs gives an operation's body and parameters; nil sends no body.
	Inputs func(op *ir.Operation) Input
	// Timeout bounds each request (default 30s).
	Timeout time.Duration
	// Now is the clock a Retry-After date is read against (nil: time.Now).
	Now func() time.Time
}

// ErrUnknownOperation is wrapped by Run's error for an Operations entry the
// spec does not have.
var ErrUnknownOperation = errors.New("unknown operation")

// Run checks every selected operation of api against the server.
func Run(ctx context.Context, api *ir.API, opts Options) (*Report, error) {
	ops, err := selectOperations(api, opts.Operations)
	if err != nil {
		return nil, err
	}
	v := newVerifier(api, opts)
	rep := &Report{Server: redactedURL(opts.Server)}
	for _, op := range ops {
		rep.Results = append(rep.Results, v.operation(ctx, op)...)
	}
	for i := range rep.Results {
		rep.Results[i].Message = oneLine(v.redact(rep.Results[i].Message))
	}
	return rep, nil
}

// redactedURL is the server URL as reports print it: a password in it
// shown as "xxxxx".
func redactedURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// selectOperations returns the operations named, in the IR's order, or an
// error naming those the spec lacks.
func selectOperations(api *ir.API, names []string) ([]*ir.Operation, error) {
	if names == nil {
		return api.Operations, nil
	}
	var out []*ir.Operation
	var missing []string
	for _, n := range names {
		i := slices.IndexFunc(api.Operations, func(op *ir.Operation) bool { return op.ID == n })
		if i < 0 {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnknownOperation, strings.Join(missing, ", "))
	}
	for _, op := range api.Operations {
		if slices.Contains(names, op.ID) {
			out = append(out, op)
		}
	}
	return out, nil
}

// operation runs every check that applies to op.
func (v *verifier) operation(ctx context.Context, op *ir.Operation) []Result {
	oc := &opCheck{v: v, op: op, in: v.input(op)}
	if op.Retry.Safety == ir.Keyed {
		oc.keyedReplay(ctx)
		oc.keyedReuse(ctx)
		oc.keyedConcurrent(ctx)
		oc.keyedTTL()
	}
	if op.Retry.Safety == ir.Unsafe {
		oc.unsettleable()
	}
	oc.ifMatchStale(ctx)
	oc.authStatus(ctx)
	oc.judgeAnswers()
	return oc.results
}

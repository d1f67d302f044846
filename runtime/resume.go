package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrStreamCut is matched by the error of an event stream whose connection
// was lost (or fell silent past the idle timeout) and that could not be
// resumed (see StreamCutError).
var ErrStreamCut = errors.New("the event stream was cut")

// errNoResumePoint: a stream of JSON values (or an event stream whose
// events carry no id) cannot tell the server where to resume.
var errNoResumePoint = errors.New("the stream carries no event ids to resume from")

// StreamCutError ends an event stream whose connection was lost after
// Events events. A safe operation's stream is resumed (Last-Event-ID) and
// ends with it only when a limit stopped the resumption (Reason); an unsafe
// operation's (a POST chat completion) is never re-sent, so its error also
// matches ErrOutcomeUnknown: the server executed the request, and the
// events after the cut are lost. Key is the call's intent key.
type StreamCutError struct {
	Operation string
	Key       string
	// Events is how many events the caller received; LastEventID the id
	// of the last one ("" when the server sent none).
	Events      int
	LastEventID string
	// Reason is why the stream was not resumed: ErrOutcomeUnknown (an
	// unsafe operation), ErrAttemptsExhausted, ErrBudgetExhausted,
	// ErrDeadline, ErrRetryAfterTooLong, or the error of the reconnection.
	Reason error
	// Err is the read error that cut the stream (io.ErrUnexpectedEOF, a
	// reset, an *IdleTimeoutError, the context's error).
	Err error
	// Attempts lists the sends of every connection of the stream, in
	// order (each connection's numbered from 1).
	Attempts []Attempt
	// keyUnsent and resend: as CallError's.
	keyUnsent bool
	resend    Safety
}

// Error says after how many events the stream was cut, why it was not
// resumed, and the key.
func (e *StreamCutError) Error() string {
	msg := fmt.Sprintf("%s: the event stream was cut after %d events", e.Operation, e.Events)
	if e.LastEventID != "" {
		msg += fmt.Sprintf(" (last event id %q)", e.LastEventID)
	}
	if e.Reason != nil {
		msg += ": " + e.Reason.Error()
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + unknownAdvice(e.Reason, e.resend) + suffix("", e.Key, e.keyUnsent)
}

// Unwrap exposes ErrStreamCut, the reason and the read error.
func (e *StreamCutError) Unwrap() []error {
	errs := []error{ErrStreamCut}
	if e.Reason != nil {
		errs = append(errs, e.Reason)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// resumer reconnects a live response (an event stream, a download) of a
// safe operation after a cut. Each reconnection is a call of its own (its
// header phase is Do's attempt loop, redirects and credentials included)
// whose first record has ReasonStreamResume; between them it applies the
// limits of a retry: Policy.MaxAttempts reconnections in a row without
// progress, the server's wait capped by MaxRetryAfter, the deadline of the
// caller's context, and one token of the Runner's retry budget.
type resumer struct {
	ctx  context.Context
	r    *Runner
	op   *Operation
	req  Request
	opts []CallOption
	// c is the last call opened; tries counts reconnections since the
	// last progress.
	c     *call
	tries int
	// keyUnsent: the first call's requests did not carry the key.
	keyUnsent bool
	// recs are the attempt records of every connection so far.
	recs []Attempt
}

// record adds a connection's attempts to the stream's, and hands them all
// to WithAttemptLog (whose call would otherwise show the last connection
// only).
func (g *resumer) record(c *call) {
	g.recs = append(g.recs, c.recs...)
	if c.cfg.log != nil {
		*c.cfg.log = append((*c.cfg.log)[:0], g.recs...)
	}
}

// started takes the first call: every reconnection sends its key (one
// intent) and its headers (the key header and call headers included).
func (g *resumer) started(c *call) {
	c.ensureKey()
	g.record(c)
	g.c, g.keyUnsent = c, c.keyUnsent()
	g.req.Key, g.req.Header = c.key, c.req.Header
}

// progress resets the count of reconnections in a row.
func (g *resumer) progress() { g.tries = 0 }

// gate returns the wait before the next reconnection, or the limit that
// forbids it. hint is the server's wait (an event stream's retry:), 0 for
// none; timedOut says the cut was a timeout (a retry after it costs more).
func (g *resumer) gate(hint time.Duration, timedOut bool) (time.Duration, WaitSource, error) {
	pol := g.c.pol
	if !g.op.safe() {
		return 0, WaitNone, ErrOutcomeUnknown
	}
	if err := g.ctx.Err(); err != nil {
		return 0, WaitNone, err
	}
	if g.c.single || g.tries+1 >= pol.MaxAttempts {
		return 0, WaitNone, ErrAttemptsExhausted
	}
	wait, src, err := pol.nextWait(hint, hint > 0, g.tries, g.r.rand)
	if err != nil {
		return 0, WaitNone, err
	}
	if d, ok := g.ctx.Deadline(); ok && wait+pol.MinAttempt > time.Until(d) {
		return 0, WaitNone, ErrDeadline
	}
	if !g.c.budget().take(timedOut) {
		return 0, WaitNone, ErrBudgetExhausted
	}
	g.tries++
	return wait, src, nil
}

// reopen waits, then opens the call again with header added (Last-Event-ID,
// Range), under the same key.
func (g *resumer) reopen(wait time.Duration, src WaitSource, header http.Header) (*http.Response, error) {
	if err := g.r.clock.Sleep(g.ctx, wait); err != nil {
		return nil, err
	}
	resp, c, err := g.r.open(g.ctx, g.op, &g.req, g.opts, openStart{why: ReasonStreamResume, wait: wait, src: src, header: header})
	g.record(c)
	if err == nil {
		g.c = c
	}
	return resp, err
}

package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// Client is what a Reconciler sends with: a generated client, or
// RunnerClient. ResendIntent sends a recorded entry again as a call of its
// operation (idemrt.Runner.Resend), with the client's own credentials. A
// Client that also implements idemrt.IntentLooker lets unsafe entries be
// looked up.
type Client interface {
	ResendIntent(ctx context.Context, e *idemrt.JournalEntry) (*http.Response, error)
}

// decide learns the entry's outcome; ok is false when nothing settled it.
func (r *Reconciler) decide(ctx context.Context, e *Entry) (Outcome, bool) {
	if o, ok := r.unworkable(e); ok {
		return o, true
	}
	ctx, cancel, err := r.leaseForWork(ctx, e)
	if err != nil {
		// Lost to another reconciler, or the journal unreachable.
		return Outcome{}, false
	}
	defer cancel()
	switch {
	case e.Queued && e.Safety == idemrt.Unsafe:
		// Dequeued first: if this process dies during the send, the next
		// pass looks the intent up instead of sending it blindly again.
		if err := r.Journal.Dequeue(ctx, e.ID, r.Owner); err != nil {
			return Outcome{}, false
		}
		return r.resend(ctx, e, "first send of a queued entry")
	case e.Safety == idemrt.Unsafe:
		return r.lookup(ctx, e)
	case e.Queued:
		return r.resend(ctx, e, "first send of a queued entry")
	}
	return r.resend(ctx, e, "resent with its key")
}

// Why a person is needed for an entry that has no key.
const (
	whyNoLookupKey = "the entry has no key to look it up by (the call's lookup key was empty, or its operation " +
		"declares no x-lookup): it is never resent, and a lookup by an empty key proves nothing"
	whyNoIdemKey = "the entry has no idempotency key: a resend without one could execute the intent twice"
)

// unworkable is the outcome of an entry that nothing may be sent for: it
// needs a person at once (ok), without a send or a lookup.
func (r *Reconciler) unworkable(e *Entry) (Outcome, bool) {
	_, canLook := r.Client.(idemrt.IntentLooker)
	lookup := e.Safety == idemrt.Unsafe && !e.Queued
	switch {
	case lookup && !canLook:
		return needsPerson("the operation is unsafe and the client cannot look intents up (no x-lookup)")
	case e.Key == "" && e.Safety == idemrt.Unsafe:
		return needsPerson(whyNoLookupKey)
	case e.Key == "" && e.Safety == idemrt.Keyed:
		return needsPerson(whyNoIdemKey)
	case lookup:
		return Outcome{}, false
	case e.Partial:
		return needsPerson("the request body was not kept (a stream, or above the buffering limit): it cannot be resent")
	case e.Safety == idemrt.Keyed && !r.now().Before(e.Created.Add(e.TTL)):
		return needsPerson(fmt.Sprintf("the key is past its TTL (%s): the server may have forgotten it, and a resend could execute the intent twice", e.TTL))
	}
	return Outcome{}, false
}

// leaseForWork bounds the work on e (its send, or its lookup) by the lease
// and renews the entry's lease to outlast it: the returned context ends
// once Lease has passed, and the entry stays leased for Grace beyond that,
// so no other reconciler works it while this one's send may be in flight,
// nor looks it up until a grace after that send can have ended.
func (r *Reconciler) leaseForWork(ctx context.Context, e *Entry) (context.Context, context.CancelFunc, error) {
	lease := r.lease()
	// The deadline is set before the clock is read: the lease then ends at
	// least Grace after it.
	ctx, cancel := context.WithTimeout(ctx, lease)
	until := r.now().Add(lease + r.grace())
	if err := r.Journal.Renew(ctx, e.ID, r.Owner, until); err != nil {
		cancel()
		return nil, nil, err
	}
	e.LeaseUntil = until
	return ctx, cancel, nil
}

func needsPerson(why string) (Outcome, bool) { return Outcome{Kind: NeedsPerson, Why: why}, true }

// resend sends the entry and reads the answer.
func (r *Reconciler) resend(ctx context.Context, e *Entry, why string) (Outcome, bool) {
	resp, err := r.Client.ResendIntent(ctx, &e.JournalEntry)
	if err == nil {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr != nil {
			return Outcome{}, false
		}
		return Outcome{Kind: Executed, Status: resp.StatusCode, Header: resp.Header, Body: body, Why: why}, true
	}
	var se *idemrt.StatusError
	switch {
	case errors.Is(err, idemrt.ErrNotResendable):
		return needsPerson("the entry cannot be resent: " + err.Error())
	case errors.Is(err, idemrt.ErrKeyReuse):
		return needsPerson("the server holds the key for another request body")
	case errors.As(err, &se) && settledBy(se.StatusCode) && !errors.Is(err, idemrt.ErrOutcomeUnknown):
		return Outcome{Kind: NotExecuted, Status: se.StatusCode, Header: se.Header, Body: se.Body, Why: why + ": refused"}, true
	}
	// Unreachable, a 5xx, a credential refusal: it says nothing about the
	// intent. The lease makes the next try wait.
	return Outcome{}, false
}

// settledBy reports whether a resend's refusal settles the intent: a 4xx
// the server answered for this key, not one about the sender (401, 403,
// 407), the moment (408, 425, 429) or a key still in progress (409).
func settledBy(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired, http.StatusRequestTimeout,
		http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return false
	}
	return status >= 400 && status < 500
}

// lookup asks the client's x-lookup whether an unsafe entry was executed.
func (r *Reconciler) lookup(ctx context.Context, e *Entry) (Outcome, bool) {
	// unworkable has checked that the client can look intents up.
	l := r.Client.(idemrt.IntentLooker)
	res, err := l.LookupIntent(ctx, e.Operation, e.Key)
	switch {
	case errors.Is(err, idemrt.ErrNoLookup):
		return needsPerson("the operation is unsafe and declares no x-lookup: it is never resent")
	case err != nil:
		return Outcome{}, false
	case res.Found:
		return Outcome{Kind: Executed, Status: res.Status, Body: res.Body, Why: "found by its x-lookup"}, true
	}
	return Outcome{Kind: NotExecuted, Status: res.Status, Why: "not found by its x-lookup after the grace"}, true
}

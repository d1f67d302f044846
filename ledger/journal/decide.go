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
	case e.Partial:
		return needsPerson("the request body was not kept (a stream, or above the buffering limit): it cannot be resent")
	case e.Safety == idemrt.Keyed && !r.now().Before(e.Created.Add(e.TTL)):
		return needsPerson(fmt.Sprintf("the key is past its TTL (%s): the server may have forgotten it, and a resend could execute the intent twice", e.TTL))
	}
	why := "resent with its key"
	if e.Queued {
		why = "first send of a queued entry"
	}
	return r.resend(ctx, e, why)
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
	l, ok := r.Client.(idemrt.IntentLooker)
	if !ok {
		return needsPerson("the operation is unsafe and the client cannot look intents up (no x-lookup)")
	}
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

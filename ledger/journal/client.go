package journal

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// RunnerClient is a Client made of a Runner (with the client's credentials
// among its options), the server its requests go to and the operations it
// may resend, for clients that do not implement ResendIntent themselves.
// An entry whose URL is not under Server is refused (idemrt.Runner.Resend),
// as is every entry when Server is nil: the Runner's credentials go to
// Server only. Looker, when set, answers LookupIntent (a generated
// client's x-lookup); without it every unsafe entry needs a person.
type RunnerClient struct {
	Runner     *idemrt.Runner
	Server     *url.URL
	Operations []*idemrt.Operation
	Looker     idemrt.IntentLooker
}

// ResendIntent implements Client: it resends e as a call of its operation.
func (c RunnerClient) ResendIntent(ctx context.Context, e *idemrt.JournalEntry) (*http.Response, error) {
	for _, op := range c.Operations {
		if op.ID == e.Operation {
			return c.Runner.Resend(ctx, op, c.Server, e)
		}
	}
	return nil, &idemrt.CallError{Operation: e.Operation, Key: e.Key, Reason: idemrt.ErrNotResendable,
		Err: fmt.Errorf("the client has no operation %q", e.Operation)}
}

// LookupIntent implements idemrt.IntentLooker through Looker.
func (c RunnerClient) LookupIntent(ctx context.Context, operation, key string) (idemrt.LookupResult, error) {
	if c.Looker == nil {
		return idemrt.LookupResult{}, idemrt.ErrNoLookup
	}
	return c.Looker.LookupIntent(ctx, operation, key)
}

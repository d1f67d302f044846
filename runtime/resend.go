package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrNotResendable is the Reason of a Resend refused before anything was
// sent: the entry's body was not kept (JournalEntry.Partial), its URL does
// not parse or is not under the client's server, or it names another
// operation than op.
var ErrNotResendable = errors.New("idemrt: the journal entry cannot be resent")

// Resend sends a recorded intent again: the entry's method, URL, frozen
// header and body, with its key, as a call of op with the Runner's own
// credentials (its request editors run as for any call). It is what a
// reconciler calls for a keyed entry; the attempts go to the Runner's
// journal under the entry's id (no new entry is recorded, and the entry is
// never resolved here: the reconciler settles it from the result), and the
// result is Do's. Resending an unsafe operation is the caller's decision: a
// reconciler never does.
//
// server is the server op's requests are built on (the generated client's
// own): an entry whose URL is not under it (another scheme, host, port or
// path prefix, or a URL with user information) is refused with
// ErrNotResendable, so that a journal row written elsewhere (an
// application's RecordTx with a URL from its input, a database someone
// else can write) never takes the client's credentials to another host.
func (r *Runner) Resend(ctx context.Context, op *Operation, server *url.URL, e *JournalEntry, opts ...CallOption) (*http.Response, error) {
	req, err := resendRequest(op, server, e)
	if err != nil {
		return nil, &CallError{Operation: e.Operation, Key: e.Key, Reason: ErrNotResendable, Err: err}
	}
	c := r.newCall(op, req, opts)
	if r.journal != nil {
		m := c.first.moreState()
		m.journal, m.resend = e.ID, true
	}
	if err := c.init(ctx); err != nil {
		return nil, err
	}
	resp, err := c.run()
	c.ctx.leaveShared()
	return resp, err
}

// resendRequest rebuilds the Request of entry e, an entry of op.
func resendRequest(op *Operation, server *url.URL, e *JournalEntry) (*Request, error) {
	switch {
	case op == nil || op.ID != e.Operation:
		return nil, fmt.Errorf("entry %s is of operation %q", e.ID, e.Operation)
	case e.Partial:
		return nil, fmt.Errorf("entry %s: the body was not kept", e.ID)
	case e.Key == "":
		return nil, fmt.Errorf("entry %s has no key", e.ID)
	}
	u, err := url.Parse(e.URL)
	if err != nil || !u.IsAbs() {
		return nil, fmt.Errorf("entry %s: URL %q is not absolute", e.ID, e.URL)
	}
	if !underServer(u, server) {
		return nil, fmt.Errorf("entry %s: URL %q is not under the client's server %s, where its credentials go", e.ID, e.URL, server.Redacted())
	}
	return &Request{Method: e.Method, URL: u, Header: e.Header.Clone(), Body: e.Body, Key: e.Key}, nil
}

// underServer reports whether u is on server (sameOrigin) and under its
// path, without user information of its own.
func underServer(u, server *url.URL) bool {
	if server == nil || u.User != nil || !sameOrigin(u, server) {
		return false
	}
	base := strings.TrimSuffix(server.EscapedPath(), "/")
	p := u.EscapedPath()
	return p == base || strings.HasPrefix(p, base+"/")
}

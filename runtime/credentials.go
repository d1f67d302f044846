package runtime

import (
	"context"
	"fmt"
	"net/http"
)

// credentialSource is one WithCredentialSource.
type credentialSource struct {
	scheme string
}

// WithCredentialSource authenticates the operations that use the security
// scheme with credentials src returns, called for every attempt (tokens
// that expire, rotate or come from a vault); apply puts them on the
// request. A 401 answer to an attempt that used the source is no business
// answer (the request was not executed), so the call refreshes once: it
// calls src again (CredentialRefresh reports true in its context) and
// resends once, recorded as ReasonCredentialRefresh; a second 401 ends the
// call with ErrUnauthorized. Static credentials (a plain request editor)
// keep failing fast on 401. Generated clients wrap it as With<Scheme>Source.
func WithCredentialSource(scheme string, src func(ctx context.Context) (string, error), apply func(req *http.Request, credentials string)) Option {
	return runnerFunc(func(r *Runner) {
		if src == nil || apply == nil {
			return
		}
		r.sources = append(r.sources, credentialSource{scheme: scheme})
		r.editors = append(r.editors, func(ctx context.Context, req *http.Request) error {
			if !OperationOf(ctx).Uses(scheme) {
				return nil
			}
			cred, err := src(ctx)
			if err != nil {
				return fmt.Errorf("credentials of the security scheme %q: %w", scheme, err)
			}
			apply(req, cred)
			return nil
		})
	})
}

// CredentialRefresh reports whether ctx is the context of an attempt that
// resends after a 401: a credential source called with it should fetch
// fresh credentials instead of returning cached ones.
func CredentialRefresh(ctx context.Context) bool {
	c, ok := ctx.Value(engineKey{}).(*call)
	return ok && c.refreshing
}

// refreshCredentials reports whether the 401 of attempt s is answered by
// one refresh of the call's credential sources.
func (c *call) refreshCredentials(s *sent, v verdict) bool {
	if c.refreshed || !c.replayable() || s.err != nil || s.resp.StatusCode != http.StatusUnauthorized || v.rule != ErrUnauthorized {
		return false
	}
	for _, src := range c.r.sources {
		if c.op.Uses(src.scheme) {
			c.refreshed, c.refreshing = true, true
			return true
		}
	}
	return false
}

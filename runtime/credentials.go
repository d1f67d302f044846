package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
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

// edit runs the request editors on hr and notes what they added, also when
// one fails: the call's header and URL may keep what they wrote (the first
// attempt's request shares them), so a later request carries it too.
func (c *call) edit(ctx context.Context, hr *http.Request) error {
	if len(c.r.editors) == 0 {
		return nil
	}
	var snap editSnapshot
	snap.take(hr)
	var err error
	for _, edit := range c.r.editors {
		if err = edit(ctx, hr); err != nil {
			break
		}
	}
	c.noteEdits(&snap, hr)
	return err
}

// added is what the request editors added to a call's requests: the header
// names and query parameters whose values they set or changed, each once.
type added struct {
	headers, query []string
}

// editSnapshot is a request's header values and query before the editors
// ran, taken without allocating, so that editors which add nothing (an
// authentication option that skips the operation) cost nothing.
type editSnapshot struct {
	query   string
	n       int
	headers [16]headerMark
}

// headerMark is one header's values as the editors found them: their
// backing array (Set, Add and a new slice all change it or the length) and
// the first value (an edit in place changes it).
type headerMark struct {
	name  string
	first *string
	n     int
	value string
}

// take notes req's headers and query. Headers past the first 16 are not
// noted, so they count as added: stripped, the cautious side.
func (s *editSnapshot) take(req *http.Request) {
	s.query = req.URL.RawQuery
	for k, v := range req.Header {
		if s.n == len(s.headers) {
			break
		}
		m := headerMark{name: k, n: len(v)}
		if len(v) > 0 {
			m.first, m.value = &v[0], v[0]
		}
		s.headers[s.n] = m
		s.n++
	}
}

// unchanged reports whether header k still has the values s noted.
func (s *editSnapshot) unchanged(k string, v []string) bool {
	for i := range s.headers[:s.n] {
		if m := &s.headers[i]; m.name == k {
			return m.n == len(v) && (len(v) == 0 || (m.first == &v[0] && m.value == v[0]))
		}
	}
	return false
}

// noteEdits records in the call's first trace what the editors added to
// req since s was taken.
func (c *call) noteEdits(s *editSnapshot, req *http.Request) {
	for k, v := range req.Header {
		if !s.unchanged(k, v) {
			m := c.first.moreState()
			if m.added.headers == nil {
				m.added.headers = m.names[:0]
			}
			m.added.headers = appendOnce(m.added.headers, k)
		}
	}
	if req.URL.RawQuery == s.query {
		return
	}
	was, _ := url.ParseQuery(s.query)
	for k, v := range req.URL.Query() {
		if !slices.Equal(v, was[k]) {
			a := &c.first.moreState().added
			a.query = appendOnce(a.query, k)
		}
	}
}

// appendOnce appends name to names unless it is there.
func appendOnce(names []string, name string) []string {
	if slices.Contains(names, name) {
		return names
	}
	return append(names, name)
}

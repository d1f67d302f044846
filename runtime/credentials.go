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
			if c, ok := ctx.Value(engineKey{}).(*call); ok {
				c.first.moreState().noteCredential(scheme, cred)
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
	c.restorePristine(hr)
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
	vals  []string
}

// take notes req's headers and query. Headers past the first 16 are not
// noted, so they count as added: stripped, the cautious side.
func (s *editSnapshot) take(req *http.Request) {
	s.query = req.URL.RawQuery
	for k, v := range req.Header {
		if s.n == len(s.headers) {
			break
		}
		m := headerMark{name: k, n: len(v), vals: v}
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
			m.pristine.noteHeader(s, k)
		}
	}
	if req.URL.RawQuery == s.query {
		c.first.more.sealPristine()
		return
	}
	c.first.moreState().pristine.noteQuery(s.query)
	defer c.first.more.sealPristine()
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

// pristine is the call's header values and query as they were before the
// request editors first changed them. Every later run of the editors starts
// from it, so that an editor that adds (a cookie, a repeated query
// parameter, a header value) adds once per request, and a refreshed
// credential replaces the stale one instead of following it.
type pristine struct {
	// sealed is set once the first run that changed anything is noted.
	sealed  bool
	headers []pristineHeader
	query   string
	// queryEdited says query holds the editors' starting point.
	queryEdited bool
}

// pristineHeader is one header the editors changed, with its values before
// they ran; known is false when the snapshot was too full to tell them.
type pristineHeader struct {
	name  string
	vals  []string
	known bool
}

// noteHeader records header k's values as s found them, unless an earlier
// run of the editors already did.
func (p *pristine) noteHeader(s *editSnapshot, k string) {
	if p.sealed {
		return
	}
	for i := range s.headers[:s.n] {
		if m := &s.headers[i]; m.name == k {
			vals := append([]string(nil), m.vals[:m.n]...)
			if m.n > 0 {
				vals[0] = m.value
			}
			p.headers = append(p.headers, pristineHeader{name: k, vals: vals, known: true})
			return
		}
	}
	// Not in a snapshot with room to spare: the editors added it.
	p.headers = append(p.headers, pristineHeader{name: k, known: s.n < len(s.headers)})
}

// noteQuery records the query the editors started from.
func (p *pristine) noteQuery(q string) {
	if !p.sealed {
		p.query, p.queryEdited = q, true
	}
}

// sealPristine keeps what the first changing run noted; p may be nil.
func (m *traceMore) sealPristine() {
	if m != nil && (len(m.pristine.headers) > 0 || m.pristine.queryEdited) {
		m.pristine.sealed = true
	}
}

// restorePristine puts back on hr, a later request of the call, the header
// values and query the editors started from on the first one (whose
// header and URL the call shares, so they carry the editors' additions).
func (c *call) restorePristine(hr *http.Request) {
	m := c.first.more
	if m == nil || !m.pristine.sealed {
		return
	}
	for _, h := range m.pristine.headers {
		switch {
		case !h.known:
		case h.vals == nil:
			delete(hr.Header, h.name)
		default:
			hr.Header[h.name] = slices.Clone(h.vals)
		}
	}
	if m.pristine.queryEdited && hr.URL.RawQuery != m.pristine.query {
		u := *hr.URL
		u.RawQuery = m.pristine.query
		hr.URL = &u
	}
}

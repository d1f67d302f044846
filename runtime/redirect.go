package runtime

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// errTooManyRedirects is net/http's own limit, kept when the client has no
// CheckRedirect of its own.
var errTooManyRedirects = errors.New("stopped after 10 redirects")

// hop is one redirect the client followed within an attempt: the status
// that asked for it, and the writes the attempt had made when it came.
type hop struct {
	status int
	writes int
}

// followRedirects returns a copy of hc whose CheckRedirect lets the engine
// see every redirect its calls follow, before hc's own CheckRedirect (or
// net/http's 10-hop limit) decides; a status the operation declares
// (Operation.Redirects) is not followed. The copy shares hc's Transport and Jar.
func followRedirects(hc *http.Client) *http.Client {
	cp := *hc
	next := hc.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if c, ok := req.Context().Value(engineKey{}).(*call); ok {
			if req.Response != nil && c.op != nil && c.op.Redirects.Contains(req.Response.StatusCode) {
				// A declared 3xx is the operation's answer, not a hop.
				return http.ErrUseLastResponse
			}
			c.redirected(req, via)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errTooManyRedirects
		}
		return nil
	}
	return &cp
}

// redirected notes a hop of the attempt in flight (recorded when the
// attempt ends, never charged or counted as an attempt) and keeps the
// credentials request editors added for the client's own server: a
// redirect to another host (or port) than the attempt's first request went
// to gets none of them.
func (c *call) redirected(req *http.Request, via []*http.Request) {
	if t := c.current.Load(); t != nil {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		m := t.moreState()
		m.hops = append(m.hops, hop{status: status, writes: int(t.writes.Load())})
	}
	if len(c.r.editors) > 0 && len(via) > 0 && !sameServer(via[0].URL, req.URL) {
		c.stripEdits(req)
	}
}

// sameServer compares scheme-default-aware host:port pairs, case-blind.
func sameServer(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// port is u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// stripEdits removes from req, a redirect to another server, what the
// request editors added to the call's requests as they added it (noteEdits):
// every header whose values they set or changed (an API key, a Cookie,
// Authorization; deleted under the very name the editor used, canonical or
// not) and every query parameter they set, should the Location repeat it,
// plus the Referer net/http adds (it holds the previous URL, query
// credentials included). It never calls an editor again: a credential
// source may fail, or rotate its names, on its next call.
func (c *call) stripEdits(req *http.Request) {
	delete(req.Header, "Referer")
	m := c.first.more
	if m == nil {
		return
	}
	for _, k := range m.added.headers {
		delete(req.Header, k)
	}
	if len(m.added.query) == 0 || req.URL.RawQuery == "" {
		return
	}
	q := req.URL.Query()
	for _, k := range m.added.query {
		q.Del(k)
	}
	req.URL.RawQuery = q.Encode()
}

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
// redirect to another host (or port) gets none of them.
func (c *call) redirected(req *http.Request, via []*http.Request) {
	if t := c.current.Load(); t != nil {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		if t.hops == nil {
			t.hops = new([]hop)
		}
		*t.hops = append(*t.hops, hop{status: status, writes: int(t.writes.Load())})
	}
	if len(c.r.editors) > 0 && !sameServer(c.req.URL, req.URL) {
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

// stripEdits removes from a redirect to another server what the request
// editors add: it runs them on an empty probe request (same operation, same
// URL without its query) and deletes every header they set (an API key, a
// Cookie, Authorization) and every query parameter they set, should the
// Location repeat it, plus the Referer net/http adds (it holds the previous
// URL, query credentials included). Probing on the rare cross-server hop
// costs nothing per call, and needs no record of what each call's editors
// did.
func (c *call) stripEdits(req *http.Request) {
	u := *c.req.URL
	u.RawQuery = ""
	probe := (&http.Request{Method: c.req.Method, URL: &u, Header: http.Header{}}).WithContext(req.Context())
	for _, edit := range c.r.editors {
		_ = edit(probe.Context(), probe)
	}
	req.Header.Del("Referer")
	for k := range probe.Header {
		req.Header.Del(k)
	}
	if probe.URL.RawQuery == "" || req.URL.RawQuery == "" {
		return
	}
	q := req.URL.Query()
	for k := range probe.URL.Query() {
		q.Del(k)
	}
	req.URL.RawQuery = q.Encode()
}

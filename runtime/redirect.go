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
// net/http's 10-hop limit) decides. The copy shares hc's Transport and Jar.
func followRedirects(hc *http.Client) *http.Client {
	cp := *hc
	next := hc.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if c, ok := req.Context().Value(engineKey{}).(*call); ok {
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
		t.hops = append(t.hops, hop{status: status, writes: int(t.writes.Load())})
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

// snapshotHeader records the names of the headers the call has before any
// editor runs, and the query: what editors add beyond them (credentials,
// typically) is for the client's own server only. It fills an array inside
// the call, so it does not allocate for a usual request.
func (c *call) snapshotHeader() {
	c.baseQuery = c.req.URL.RawQuery
	for k := range c.header {
		if c.baseN < len(c.base) {
			c.base[c.baseN] = k
			c.baseN++
		} else {
			c.baseMore = append(c.baseMore, k)
		}
	}
}

// baseHeader reports whether name was set before the editors ran.
func (c *call) baseHeader(name string) bool {
	for _, k := range c.base[:c.baseN] {
		if k == name {
			return true
		}
	}
	for _, k := range c.baseMore {
		if k == name {
			return true
		}
	}
	return false
}

// stripEdits removes from a redirect to another server what the editors
// added: headers (an API key, a Cookie), the Referer net/http sets (it
// holds the previous URL, query credentials included), and query
// parameters the editors added, should the Location repeat them.
func (c *call) stripEdits(req *http.Request) {
	for k := range req.Header {
		if !c.baseHeader(k) || k == "Referer" {
			delete(req.Header, k)
		}
	}
	if c.req.URL.RawQuery == c.baseQuery || req.URL.RawQuery == "" {
		return
	}
	before, _ := url.ParseQuery(c.baseQuery)
	after, _ := url.ParseQuery(c.req.URL.RawQuery)
	q := req.URL.Query()
	for k := range after {
		if _, ok := before[k]; !ok {
			q.Del(k)
		}
	}
	req.URL.RawQuery = q.Encode()
}

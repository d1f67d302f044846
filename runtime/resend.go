package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrNotResendable is the Reason of a Resend refused before anything was
// sent: the entry is not a call of its operation as that operation sends
// it (another operation, method or path; a path with dot segments; a URL
// that does not parse or is not under the client's server), its body or a
// parameter's value was not kept (JournalEntry.Partial; a parameter the
// operation does not declare), or its key's TTL ends too soon to send it.
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
// own). Resend refuses, with ErrNotResendable and nothing sent, an entry
// that is not a call of op to server as op sends it: its method must be
// op.Method; its URL must be on server (scheme, host, port), without user
// information, its path under server's path and, after it, matching
// op.Path (each {param} one non-empty segment, or part of one); its path
// may hold no dot segment ("." or "..", RFC 3986 5.2.4) once decoded, and
// no encoded dot (%2e) at all; and every header, query and cookie
// parameter must be one whose value the journal keeps for op (see
// WithJournal). So a journal row written elsewhere (an application's
// RecordTx with a URL from its input, a database someone else can write)
// never takes the client's credentials to another host, resource or
// operation.
//
// No attempt leaves after the entry's creation plus its key's TTL, less a
// margin (the larger of 1 s and 1% of the TTL): past that the
// server may have forgotten the key, and a resend could execute the intent
// twice. An entry already past it is refused; otherwise the call's deadline
// is at most that time (in the Runner clock's time), so a retry the
// server asks for later (Retry-After) is not made.
func (r *Runner) Resend(ctx context.Context, op *Operation, server *url.URL, e *JournalEntry, opts ...CallOption) (*http.Response, error) {
	req, err := resendRequest(op, server, e)
	var left time.Duration
	if err == nil {
		left, err = resendTimeLeft(e, r.clock.Now())
	}
	if err != nil {
		return nil, &CallError{Operation: e.Operation, Key: e.Key, Reason: ErrNotResendable, Err: err}
	}
	c := r.newCall(op, req, opts)
	c.boundBy(left)
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

// resendMargin is how long before its key's TTL ends a resend stops
// sending: the larger of 1 s and 1% of the TTL (14 min 24 s of the default
// 24 h), for the request's way to the server and for the client's and the
// server's clocks to differ.
func resendMargin(ttl time.Duration) time.Duration {
	return max(time.Second, ttl/100)
}

// resendTimeLeft is how long from now attempts of a resend of e may leave:
// until e.Created plus its TTL less resendMargin.
func resendTimeLeft(e *JournalEntry, now time.Time) (time.Duration, error) {
	if e.Created.IsZero() {
		return 0, fmt.Errorf("entry %s has no creation time: its key's TTL cannot be checked", e.ID)
	}
	ttl := e.TTL
	if ttl <= 0 {
		ttl = DefaultKeyTTL
	}
	margin := resendMargin(ttl)
	left := e.Created.Add(ttl - margin).Sub(now)
	if left <= 0 {
		return 0, fmt.Errorf("entry %s: its key's TTL (%s) ends at %s, and no resend leaves later than %s before that",
			e.ID, ttl, e.Created.Add(ttl).Format(time.RFC3339Nano), margin)
	}
	return left, nil
}

// boundBy makes the call's deadline at most left from its start: its
// timeout (the call's, else the policy's) when that is shorter, else left.
// A deadline of the call's context still applies when it is earlier.
func (c *call) boundBy(left time.Duration) {
	t := c.cfg.timeout
	if t == 0 {
		t = c.r.policies[c.cfg.class.valid()].Timeout
	}
	if t > 0 && t <= left {
		return
	}
	c.cfg = withOptions(*c.cfg, []CallOption{WithTimeout(left)})
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
	case op.Method == "" || e.Method != op.Method:
		return nil, fmt.Errorf("entry %s: method %q is not that of operation %s (%q)", e.ID, e.Method, op.ID, op.Method)
	}
	u, err := url.Parse(e.URL)
	if err != nil || !u.IsAbs() {
		return nil, fmt.Errorf("entry %s: URL %q is not absolute", e.ID, e.URL)
	}
	if !underServer(u, server) {
		return nil, fmt.Errorf("entry %s: URL %q is not under the client's server %s, where its credentials go", e.ID, e.URL, server.Redacted())
	}
	if err := checkPath(op, server, u); err != nil {
		return nil, fmt.Errorf("entry %s: %w", e.ID, err)
	}
	send, judged := restoreServerQuery(u.RawQuery, server)
	if p := withheldParam(op, e.Header, judged); p != "" {
		return nil, fmt.Errorf("entry %s: the journal kept the name of %s but not its value (operation %s does not declare it, "+
			"or it is a credential's name), so a resend would not be the call that was made", e.ID, p, op.ID)
	}
	h := e.Header.Clone()
	for name := range h {
		if op.ruleFor(name) == dropHeader {
			delete(h, name)
		}
	}
	u.RawQuery = send
	return &Request{Method: e.Method, URL: u, Header: h, Body: e.Body, Key: e.Key}, nil
}

// restoreServerQuery gives back the values of the query pairs that come
// from the client's own server URL (an api-version, a key written into the
// base URL): the journal keeps such an undeclared pair by name only, and
// the client's configuration, never the row, supplies its value. It returns
// the query to send and the query less those pairs, which withheldParam
// judges. Only a pair named as a server pair and stored by name only (or
// as the server has it) is taken from the server.
func restoreServerQuery(rawQuery string, server *url.URL) (send, judged string) {
	if rawQuery == "" || server == nil || server.RawQuery == "" {
		return rawQuery, rawQuery
	}
	own := make(map[string]string)
	for _, p := range strings.Split(server.RawQuery, "&") {
		if name, _, _ := strings.Cut(p, "="); name != "" {
			own[name] = p
		}
	}
	var out, rest []string
	for _, p := range strings.Split(rawQuery, "&") {
		name, _, hasValue := strings.Cut(p, "=")
		if sp, ok := own[name]; ok && (!hasValue || p == sp) {
			out = append(out, sp)
			continue
		}
		out, rest = append(out, p), append(rest, p)
	}
	return strings.Join(out, "&"), strings.Join(rest, "&")
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

// checkPath refuses the path of u, a URL under server, unless it is a path
// of op: no encoded dot, no dot segment once decoded, and after server's
// base path, op's path template.
func checkPath(op *Operation, server, u *url.URL) error {
	escaped := u.EscapedPath()
	switch {
	case strings.Contains(strings.ToLower(escaped), "%2e"):
		return fmt.Errorf("path %q has an encoded dot (%%2e)", escaped)
	case removeDotSegments(u.Path) != u.Path:
		return fmt.Errorf("path %q has dot segments: it is %q once they are removed", escaped, removeDotSegments(u.Path))
	case op.Path == "":
		return fmt.Errorf("operation %s has no path template to check the entry's path against", op.ID)
	}
	rest := strings.TrimPrefix(escaped, strings.TrimSuffix(server.EscapedPath(), "/"))
	if !matchTemplate(op.Path, rest) {
		return fmt.Errorf("path %q is not one of operation %s (%s under %s)", escaped, op.ID, op.Path, server.EscapedPath())
	}
	return nil
}

// removeDotSegments is path p without its "." and ".." segments, resolved
// as RFC 3986 section 5.2.4 says.
func removeDotSegments(p string) string {
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
			continue
		}
		if last {
			// "/a/." and "/a/b/.." end with a slash.
			out = append(out, "")
		}
	}
	return strings.Join(out, "/")
}

// matchTemplate reports whether escaped path p is one of template tmpl:
// the same number of segments, each literal segment equal to p's once
// decoded, each {param} matching at least one byte of its segment.
func matchTemplate(tmpl, p string) bool {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(p, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		seg, err := url.PathUnescape(ps[i])
		if err != nil || !matchSegment(ts[i], seg) {
			return false
		}
	}
	return true
}

// matchSegment reports whether one template segment ("{id}", "{n}.json",
// "notes") matches the decoded segment s, each {param} one or more bytes.
func matchSegment(tmpl, s string) bool {
	open := strings.IndexByte(tmpl, '{')
	if open < 0 {
		return tmpl == s
	}
	end := strings.IndexByte(tmpl[open:], '}')
	if end < 0 {
		return tmpl == s
	}
	lit, rest := tmpl[:open], tmpl[open+end+1:]
	if !strings.HasPrefix(s, lit) {
		return false
	}
	s = s[len(lit):]
	for n := 1; n <= len(s); n++ {
		if matchSegment(rest, s[n:]) {
			return true
		}
	}
	return false
}

package runtime

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Bounds of Link header parsing: the server writes the header, so a huge
// or endless one costs at most this much work.
const (
	maxLinkText  = 16 << 10
	maxLinkItems = 32
)

// NextLink returns the target of the RFC 8288 Link header's rel="next" link
// ("" when there is none), as written: relative references are resolved
// by the caller against the request URL. It reads every Link field line,
// quoted parameters, and relation lists (rel="next last"), up to 16 KiB and
// 32 links.
func NextLink(h http.Header) string {
	text := strings.Join(h.Values("Link"), ", ")
	if len(text) > maxLinkText {
		text = text[:maxLinkText]
	}
	s := linkScanner{s: text}
	for range maxLinkItems {
		target, rel, ok := s.link()
		if !ok {
			return ""
		}
		for r := range strings.FieldsSeq(rel) {
			if strings.EqualFold(r, "next") {
				return target
			}
		}
	}
	return ""
}

// linkScanner reads link-values: <target> *( ";" param [ "=" value ] ).
type linkScanner struct {
	s string
	i int
}

// link reads the next link-value: its target and its first rel parameter.
func (l *linkScanner) link() (target, rel string, ok bool) {
	l.skip(" \t,")
	if l.i >= len(l.s) || l.s[l.i] != '<' {
		return "", "", false
	}
	end := strings.IndexByte(l.s[l.i:], '>')
	if end < 0 {
		return "", "", false
	}
	target = strings.TrimSpace(l.s[l.i+1 : l.i+end])
	l.i += end + 1
	relSeen := false
	for l.skip(" \t"); l.i < len(l.s) && l.s[l.i] == ';'; l.skip(" \t") {
		l.i++
		name, value := l.param()
		if strings.EqualFold(name, "rel") && !relSeen {
			// RFC 8288 3.3: only the first rel parameter counts.
			rel, relSeen = value, true
		}
	}
	return target, rel, true
}

// param reads one parameter after its ";": a token name and an optional
// token or quoted-string value.
func (l *linkScanner) param() (name, value string) {
	l.skip(" \t")
	start := l.i
	for l.i < len(l.s) && !strings.ContainsRune("=;, \t", rune(l.s[l.i])) {
		l.i++
	}
	name = l.s[start:l.i]
	l.skip(" \t")
	if l.i >= len(l.s) || l.s[l.i] != '=' {
		return name, ""
	}
	l.i++
	l.skip(" \t")
	if l.i < len(l.s) && l.s[l.i] == '"' {
		return name, l.quoted()
	}
	start = l.i
	for l.i < len(l.s) && !strings.ContainsRune(";, \t", rune(l.s[l.i])) {
		l.i++
	}
	return name, l.s[start:l.i]
}

// quoted reads a quoted-string, undoing backslash escapes.
func (l *linkScanner) quoted() string {
	var b strings.Builder
	for l.i++; l.i < len(l.s); l.i++ {
		switch c := l.s[l.i]; {
		case c == '"':
			l.i++
			return b.String()
		case c == '\\' && l.i+1 < len(l.s):
			l.i++
			b.WriteByte(l.s[l.i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skip advances over any of the bytes in set.
func (l *linkScanner) skip(set string) {
	for l.i < len(l.s) && strings.IndexByte(set, l.s[l.i]) >= 0 {
		l.i++
	}
}

// resolveNext resolves a next-page reference against the URL of the
// request that got it (RFC 8288: the link's context), so that the cursor is
// an absolute URL.
func resolveNext(raw string, resp *http.Response) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("pagination: the next-page URL does not parse: %w", err)
	}
	if resp != nil && resp.Request != nil && resp.Request.URL != nil {
		u = resp.Request.URL.ResolveReference(u)
	}
	return u.String(), nil
}

// nextURL is the option by which a link Pager sends a page call to the
// next-page URL instead of the URL its params build.
type nextURL string

func (n nextURL) applyCall(c *callConfig) { c.withDest().next = string(n) }

// followNext points the request at the next-page URL, if any: resolved
// against the URL the page method built, and refused, unsent, unless it is
// on the same scheme, host and port (the server the client was made for,
// or WithBaseURL's), since request editors add the client's credentials to
// whatever URL the request has. A URL carrying user info is refused too.
func (c *call) followNext() error {
	if c.cfg.dest.next == "" {
		return nil
	}
	u, err := c.req.URL.Parse(c.cfg.dest.next)
	if err != nil {
		return fmt.Errorf("pagination: the next-page URL does not parse: %w", err)
	}
	if u.User != nil || !sameOrigin(u, c.req.URL) {
		return fmt.Errorf("%w: %s://%s is not %s://%s", ErrForeignNextLink, u.Scheme, u.Host, c.req.URL.Scheme, c.req.URL.Host)
	}
	c.ownRequest().URL = u
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (an absent port is the scheme's default).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		portOf(a) == portOf(b)
}

// portOf is u's port, or its scheme's default.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

package runtime

import (
	"strconv"
	"strings"
	"time"
)

// parseRateLimitField reads the RateLimit field of
// draft-ietf-httpapi-ratelimit-headers: a structured-field List (RFC 9651)
// of service limits, `"policy";r=<remaining>;t=<seconds>`, split over any
// number of field lines. exhausted says some limit has r=0, and wait is the
// longest t among those (capped at maxReset): every exhausted quota must
// have reset before a retry can pass. ok is false for a field that is
// malformed, longer than maxField or with more than maxFieldItems limits,
// or empty: such a field is ignored whole, as the draft requires.
//
// The parser is tolerant where the draft leaves room: a limit's name may be
// any bare item (a token as well as a string), and parameters other than r
// and t are skipped whatever their type. r is required and, with t, must be
// a non-negative Integer.
func parseRateLimitField(lines []string) (exhausted bool, wait time.Duration, ok bool) {
	n := 0
	for _, l := range lines {
		n += len(l) + 2
	}
	if n > maxField+2 {
		return false, 0, false
	}
	p := sfParser{s: strings.Trim(strings.Join(lines, ", "), " \t")}
	items := 0
	for !p.done() {
		r, t, good := p.limit()
		items++
		if !good || items > maxFieldItems || !p.nextMember() {
			return false, 0, false
		}
		if r == 0 {
			exhausted, wait = true, max(wait, t)
		}
	}
	return exhausted, wait, items > 0
}

// sfParser walks a structured field value; every method reports failure
// rather than guessing.
type sfParser struct {
	s string
	i int
}

func (p *sfParser) done() bool { return p.i >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

// skipOWS skips optional whitespace (SP, HTAB).
func (p *sfParser) skipOWS() {
	for p.peek() == ' ' || p.peek() == '\t' {
		p.i++
	}
}

// nextMember moves past the comma after a list member: false when what
// follows is neither the end nor a comma and another member.
func (p *sfParser) nextMember() bool {
	p.skipOWS()
	if p.done() {
		return true
	}
	if p.peek() != ',' {
		return false
	}
	p.i++
	p.skipOWS()
	return !p.done()
}

// limit parses one service limit: a bare item, then its parameters. good
// is false when r is absent or either is not a non-negative Integer.
func (p *sfParser) limit() (r int64, t time.Duration, good bool) {
	if _, kind := p.bareItem(); kind == sfBad {
		return 0, 0, false
	}
	r = -1
	for p.peek() == ';' {
		p.i++
		for p.peek() == ' ' {
			p.i++
		}
		key, ok := p.key()
		if !ok {
			return 0, 0, false
		}
		n, kind := int64(1), sfOther // a bare key is Boolean true
		if p.peek() == '=' {
			p.i++
			n, kind = p.bareItem()
		}
		switch {
		case kind == sfBad || ((key == "r" || key == "t") && (kind != sfInteger || n < 0)):
			return 0, 0, false
		case key == "r":
			r = n
		case key == "t":
			t = min(time.Duration(n), maxReset/time.Second) * time.Second
		}
	}
	return r, t, r >= 0
}

// key parses a parameter key: lcalpha or "*", then lcalpha, digits and
// "_-.*".
func (p *sfParser) key() (string, bool) {
	start := p.i
	if c := p.peek(); (c < 'a' || c > 'z') && c != '*' {
		return "", false
	}
	for isKeyChar(p.peek()) {
		p.i++
	}
	return p.s[start:p.i], true
}

func isKeyChar(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '*'
}

// sfKind is the kind of a bare item as far as the parser cares.
type sfKind uint8

const (
	sfBad     sfKind = iota // malformed
	sfInteger               // an Integer, its value returned
	sfOther                 // any other well-formed bare item
)

// bareItem parses any bare item (RFC 9651 section 4.2.3.1, without Dates
// and Display Strings, which no RateLimit server sends).
func (p *sfParser) bareItem() (int64, sfKind) {
	ok := false
	switch c := p.peek(); {
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == '"':
		ok = p.quoted()
	case c == ':':
		ok = p.byteSeq()
	case c == '?':
		ok = p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1')
		p.i += 2
	case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*':
		p.i++
		for isTokenChar(p.peek()) {
			p.i++
		}
		ok = true
	}
	if !ok {
		return 0, sfBad
	}
	return 0, sfOther
}

// number parses an Integer (at most 15 digits) or a Decimal (at most 12
// digits, ".", 1 to 3 digits).
func (p *sfParser) number() (int64, sfKind) {
	neg := p.peek() == '-'
	if neg {
		p.i++
	}
	start := p.i
	for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
		p.i++
	}
	whole := p.i - start
	if whole == 0 || whole > 15 {
		return 0, sfBad
	}
	if p.peek() == '.' {
		p.i++
		fs := p.i
		for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
			p.i++
		}
		if whole > 12 || p.i-fs < 1 || p.i-fs > 3 {
			return 0, sfBad
		}
		return 0, sfOther
	}
	n, _ := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if neg {
		n = -n
	}
	return n, sfInteger
}

// quoted parses a String: printable ASCII, with \" and \\ the only escapes.
func (p *sfParser) quoted() bool {
	for p.i++; !p.done(); p.i++ {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return true
		case c == '\\':
			p.i++
			if c := p.peek(); c != '"' && c != '\\' {
				return false
			}
		case c < 0x20 || c > 0x7e:
			return false
		}
	}
	return false
}

// byteSeq parses a Byte Sequence: base64 characters between colons.
func (p *sfParser) byteSeq() bool {
	for p.i++; !p.done(); p.i++ {
		c := p.s[p.i]
		switch {
		case c == ':':
			p.i++
			return true
		case (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '+' && c != '/' && c != '=':
			return false
		}
	}
	return false
}

// isTokenChar reports a tchar, ":" or "/": what a Token continues with.
func isTokenChar(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		(c != 0 && strings.IndexByte("!#$%&'*+-.^_`|~:/", c) >= 0)
}

package runtime

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The retry dialects real APIs speak, read from the headers of an answer of
// status 400 or more (docs/runtime.md has the table):
//
//   - Retry-After, retry-after-ms (retryafter.go): the wait, on any status;
//     on a 403 or 429 also a rate-limit signal.
//   - GitHub (and Discord, Laravel...): x-ratelimit-remaining: 0
//     with x-ratelimit-reset.
//   - draft-ietf-httpapi-ratelimit-headers: the RateLimit field (a list of
//     service limits, "policy";r=<remaining>;t=<seconds>), and the older
//     drafts' RateLimit-Remaining: 0 with RateLimit-Reset. RateLimit-Policy
//     says what the quotas are, not what is left, and is not read.
//   - Stripe-Should-Retry (Stripe) and x-should-retry (servers behind the
//     Stainless-built SDKs): the server's explicit word on a retry.

const (
	// maxReset caps a reset the server names (100 years), so that now plus
	// the wait never overflows a time.Time or a time.Duration; anything near
	// it is far above every MaxRetryAfter.
	maxReset = 100 * 365 * 24 * time.Hour
	// epochFloor tells a reset's two spellings apart: a value of at least
	// 10^9 seconds (September 2001 as a Unix time, 31 years as a delay) is
	// a Unix time, as GitHub, Discord and GitLab send it; a smaller one is
	// delta-seconds, as the older IETF drafts specify.
	epochFloor = 1_000_000_000
	// maxField bounds the RateLimit field value the parser reads, and
	// maxFieldItems its service limits; a longer one is ignored whole.
	maxField      = 4096
	maxFieldItems = 64
	// maxNumber bounds a remaining count or a reset value: longer is garbage.
	maxNumber = 32
	// maxResetSpread caps the random time added to a wait for a reset.
	maxResetSpread = time.Second
)

// word is the server's explicit retry advice.
type word uint8

const (
	wordNone    word = iota
	wordRetry        // "true": safe to retry (with the same idempotency key)
	wordNoRetry      // "false": do not retry
)

// advice is what the headers of one answer say about retrying it.
type advice struct {
	// wait is the server's wait (hasWait), from the header named by from,
	// and reset the answer's time plus it.
	wait    time.Duration
	hasWait bool
	from    string
	reset   time.Time
	// limited: the answer carries a rate-limit signal (403, 429 and 503
	// only; a 503's Retry-After alone is not one).
	limited bool
	word    word
}

// readAdvice reads the dialects of an answer of the given status at now.
// The wait comes from the first of, in this order: Retry-After (after
// retry-after-ms), x-ratelimit-reset, the RateLimit field, RateLimit-Reset.
// Every one of them goes through the same ceilings in the attempt loop.
func readAdvice(status int, h http.Header, now time.Time) advice {
	a := advice{word: shouldRetry(h)}
	if d, ok := parseRetryAfter(h, now); ok {
		a.setWait(d, "Retry-After", now)
		a.limited = status == http.StatusForbidden || status == http.StatusTooManyRequests
	}
	if status != http.StatusForbidden && status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
		return a
	}
	if exhausted(h["X-Ratelimit-Remaining"]) {
		d, ok := parseReset(first(h["X-Ratelimit-Reset"]), now)
		a.quota(d, ok, "X-Ratelimit-Reset", now)
	}
	if v, found := h["Ratelimit"]; found {
		if ex, d, ok := parseRateLimitField(v); ok && ex {
			a.quota(d, d > 0, "RateLimit", now)
		}
	}
	if exhausted(h["Ratelimit-Remaining"]) {
		d, ok := parseReset(first(h["Ratelimit-Reset"]), now)
		a.quota(d, ok, "RateLimit-Reset", now)
	}
	return a
}

// setWait records the server's wait d, named by the header from.
func (a *advice) setWait(d time.Duration, from string, now time.Time) {
	a.wait, a.hasWait, a.from, a.reset = d, true, from, now.Add(d)
}

// quota records an exhausted quota, and its reset when usable and no
// earlier header gave the wait.
func (a *advice) quota(d time.Duration, ok bool, from string, now time.Time) {
	a.limited = true
	if ok && !a.hasWait {
		a.setWait(d, from, now)
	}
}

// resetSpread is the random time added to a wait for a quota's reset
// (x-ratelimit-reset, RateLimit, RateLimit-Reset): up to a tenth of the
// wait, at most maxResetSpread. A reset is one instant for every client of
// the quota, so without it a fleet limited together returns in the same
// second. Retry-After is the server's own placement of this request and
// is kept exact.
func (a *advice) resetSpread(rnd func() float64) time.Duration {
	if !a.hasWait || !a.limited || a.from == "Retry-After" {
		return 0
	}
	f := rnd()
	if f < 0 || f >= 1 || math.IsNaN(f) {
		return 0
	}
	return time.Duration(f * float64(min(a.wait/10, maxResetSpread)))
}

// limitError is the Reason of a rate-limited call stopped by limit (nil:
// the server said not to retry).
func (a *advice) limitError(limit error) *RateLimitError {
	e := &RateLimitError{Limit: limit}
	if a.hasWait {
		e.Reset, e.Header = a.reset, a.from
	}
	return e
}

// shouldRetry reads Stripe-Should-Retry and x-should-retry ("true" or
// "false", any case); "false" in either wins over "true" in the other.
func shouldRetry(h http.Header) word {
	s, x := wordOf(h["Stripe-Should-Retry"]), wordOf(h["X-Should-Retry"])
	switch {
	case s == wordNoRetry || x == wordNoRetry:
		return wordNoRetry
	case s == wordRetry || x == wordRetry:
		return wordRetry
	}
	return wordNone
}

func wordOf(v []string) word {
	s := strings.TrimSpace(first(v))
	switch {
	case strings.EqualFold(s, "true"):
		return wordRetry
	case strings.EqualFold(s, "false"):
		return wordNoRetry
	}
	return wordNone
}

// first is a header's first value, or "".
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// exhausted reports a remaining-quota header of 0 (the older drafts' value
// may carry parameters: "0;w=60").
func exhausted(v []string) bool {
	s, _, _ := strings.Cut(first(v), ";")
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxNumber {
		return false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return err == nil && n == 0
}

// parseReset reads a reset as seconds, with an optional fraction
// (Discord's "1470173023.123"): a Unix time from epochFloor up, else
// delta-seconds. A reset not in the future, or garbage, is no wait.
func parseReset(v string, now time.Time) (time.Duration, bool) {
	sec, nsec, ok := parseSeconds(strings.TrimSpace(v))
	if !ok {
		return 0, false
	}
	var d time.Duration
	if sec >= epochFloor {
		// Sub saturates rather than overflowing.
		d = time.Unix(sec, nsec).Sub(now)
	} else {
		d = time.Duration(sec)*time.Second + time.Duration(nsec)
	}
	if d <= 0 {
		return 0, false
	}
	return min(d, maxReset), true
}

// parseSeconds parses 1-18 digits, then optionally "." and digits (the
// first nine kept), within maxNumber bytes.
func parseSeconds(v string) (sec, nsec int64, ok bool) {
	if v == "" || len(v) > maxNumber {
		return 0, 0, false
	}
	whole, frac, dot := strings.Cut(v, ".")
	if len(whole) == 0 || len(whole) > 18 || !digits(whole) || (dot && (frac == "" || !digits(frac))) {
		return 0, 0, false
	}
	sec, _ = strconv.ParseInt(whole, 10, 64)
	frac = (frac + "000000000")[:9]
	nsec, _ = strconv.ParseInt(frac, 10, 64)
	return sec, nsec, true
}

func digits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

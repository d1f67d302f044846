package runtime

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxHint is the largest hint the parser accepts; larger values are treated
// as garbage rather than overflowing a time.Duration.
const maxHint = time.Duration(math.MaxInt64)

// ParseRetryAfter reads a response's wait hint exactly as the engine does
// before a retry (parseRetryAfter): the wait and true, or false when the
// engine would see no hint and fall back to backoff. Tools that judge a
// server's hints (idemgen verify) call it so they accept what the runtime
// accepts, no more.
func ParseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	return parseRetryAfter(h, now)
}

// parseRetryAfter reads the server's wait hint: retry-after-ms (milliseconds)
// first, since it is the more precise one, then Retry-After as delta-seconds
// or an HTTP-date in any of the three forms http.ParseTime knows. Negative,
// garbage and overflowing values, and dates not in the future, count as no
// hint (the engine then uses backoff rather than hammering the server).
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if d, ok := parseDelta(v, time.Millisecond); ok {
			return d, true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		return parseDelta(v, time.Second)
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d <= 0 || d == maxHint {
		return 0, false
	}
	return d, true
}

// parseDelta parses a non-negative decimal count of unit.
func parseDelta(v string, unit time.Duration) (time.Duration, bool) {
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 63)
	if err != nil || n > uint64(maxHint/unit) {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

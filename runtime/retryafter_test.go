package runtime

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	in := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	cases := []struct {
		name, ra, ms string
		want         time.Duration
		ok           bool
	}{
		{"delta seconds", "5", "", 5 * time.Second, true},
		{"zero", "0", "", 0, true},
		{"spaces", "  7 ", "", 7 * time.Second, true},
		{"IMF-fixdate", in(90 * time.Second), "", 90 * time.Second, true},
		{"RFC 850", now.Add(2 * time.Minute).Format(time.RFC850), "", 2 * time.Minute, true},
		{"ANSI C asctime", now.Add(3 * time.Second).Format(time.ANSIC), "", 3 * time.Second, true},
		{"date in the past", in(-time.Minute), "", 0, false},
		{"date now", in(0), "", 0, false},
		{"negative", "-1", "", 0, false},
		{"plus sign", "+5", "", 0, false},
		{"fraction", "1.5", "", 0, false},
		{"garbage", "soon", "", 0, false},
		{"digits then garbage", "12abc", "", 0, false},
		{"overflow uint64", "99999999999999999999999", "", 0, false},
		{"overflow duration", "9223372037", "", 0, false},
		{"largest duration in seconds", "9223372036", "", 9223372036 * time.Second, true},
		{"empty", "", "", 0, false},
		{"ms wins", "5", "250", 250 * time.Millisecond, true},
		{"ms alone", "", "1500", 1500 * time.Millisecond, true},
		{"ms garbage falls back", "5", "x", 5 * time.Second, true},
		{"ms negative falls back", "", "-3", 0, false},
		{"ms overflow", "", "9223372036855", 0, false},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.ra != "" {
			h.Set("Retry-After", c.ra)
		}
		if c.ms != "" {
			h.Set("retry-after-ms", c.ms)
		}
		got, ok := parseRetryAfter(h, now)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got (%v, %v), want (%v, %v)", c.name, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParseRetryAfter: any header value gives a non-negative wait or no
// hint, never a panic. The seeds run as part of go test.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"5", "0", "-1", "1e3", "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "99999999999999999999", " 3 ", "\x00"} {
		f.Add(s, s)
	}
	now := time.Date(1994, 11, 6, 8, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{"Retry-After": {ra}, "Retry-After-Ms": {ms}}
		d, ok := parseRetryAfter(h, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("Retry-After %q / ms %q: got (%v, %v)", ra, ms, d, ok)
		}
	})
}

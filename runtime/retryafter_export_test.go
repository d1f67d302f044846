package runtime_test

import (
	"net/http"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestParseRetryAfterExported: the exported parser is the engine's own, so
// a tool that checks a server's hints (idemgen verify) accepts exactly what
// a generated client waits for.
func TestParseRetryAfterExported(t *testing.T) {
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{"delta seconds", http.Header{"Retry-After": {"5"}}, 5 * time.Second, true},
		{"http date", http.Header{"Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}}, time.Minute, true},
		{"milliseconds first", http.Header{"Retry-After": {"5"}, "Retry-After-Ms": {"250"}}, 250 * time.Millisecond, true},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0, false},
		{"absent", http.Header{}, 0, false},
	}
	for _, c := range cases {
		d, ok := idemrt.ParseRetryAfter(c.h, now)
		if d != c.want || ok != c.ok {
			t.Errorf("%s: %v %v, want %v %v", c.name, d, ok, c.want, c.ok)
		}
	}
}

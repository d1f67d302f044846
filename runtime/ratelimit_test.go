package runtime

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadAdvice: what the dialects' headers say, and the precedence
// between them: Retry-After (retry-after-ms first), then x-ratelimit-reset,
// then the RateLimit field, then the older RateLimit-Reset.
func TestReadAdvice(t *testing.T) {
	now := newFakeClock().Now()
	at := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	cases := []struct {
		name    string
		status  int
		h       map[string]string
		limited bool
		wait    time.Duration // 0 with from "" means no wait
		from    string
		word    word
	}{
		{"plain 403", 403, nil, false, 0, "", wordNone},
		{"403 retry-after", 403, map[string]string{"Retry-After": "3"}, true, 3 * time.Second, "Retry-After", wordNone},
		{"403 retry-after-ms", 403, map[string]string{"Retry-After-Ms": "1500"}, true, 1500 * time.Millisecond, "Retry-After", wordNone},
		{"403 garbage retry-after", 403, map[string]string{"Retry-After": "soon"}, false, 0, "", wordNone},
		{"503 retry-after is no rate limit", 503, map[string]string{"Retry-After": "3"}, false, 3 * time.Second, "Retry-After", wordNone},
		{"500 retry-after", 500, map[string]string{"Retry-After": "3"}, false, 3 * time.Second, "Retry-After", wordNone},
		{"github primary", 403, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": at(90 * time.Second)}, true, 90 * time.Second, "X-Ratelimit-Reset", wordNone},
		{"github quota left", 403, map[string]string{"X-Ratelimit-Remaining": "12", "X-Ratelimit-Reset": at(90 * time.Second)}, false, 0, "", wordNone},
		{"github reset passed", 429, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": at(-time.Second)}, true, 0, "", wordNone},
		{"github reset missing", 403, map[string]string{"X-Ratelimit-Remaining": "0"}, true, 0, "", wordNone},
		{"github reset garbage", 403, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "tomorrow"}, true, 0, "", wordNone},
		{"reset as delta seconds", 429, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "42"}, true, 42 * time.Second, "X-Ratelimit-Reset", wordNone},
		{"reset with a fraction", 429, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": at(10*time.Second) + ".25"}, true, 10250 * time.Millisecond, "X-Ratelimit-Reset", wordNone},
		{"github headers on a 500", 500, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": at(time.Minute)}, false, 0, "", wordNone},
		{"retry-after first", 429, map[string]string{"Retry-After": "2", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": at(time.Minute), "RateLimit": `"a";r=0;t=9`}, true, 2 * time.Second, "Retry-After", wordNone},
		{"x-ratelimit-reset before RateLimit", 429, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": at(time.Minute), "RateLimit": `"a";r=0;t=9`}, true, time.Minute, "X-Ratelimit-Reset", wordNone},
		{"RateLimit before the older draft", 429, map[string]string{"RateLimit": `"a";r=0;t=9`, "RateLimit-Remaining": "0", "RateLimit-Reset": "20"}, true, 9 * time.Second, "RateLimit", wordNone},
		{"RateLimit quota left", 403, map[string]string{"RateLimit": `"a";r=1;t=9`}, false, 0, "", wordNone},
		{"RateLimit without t", 429, map[string]string{"RateLimit": `"a";r=0`}, true, 0, "", wordNone},
		{"RateLimit malformed", 403, map[string]string{"RateLimit": `"a";r=0;t=9,,`}, false, 0, "", wordNone},
		{"older draft", 503, map[string]string{"RateLimit-Remaining": "0", "RateLimit-Reset": "20"}, true, 20 * time.Second, "RateLimit-Reset", wordNone},
		{"older draft, epoch reset (GitLab)", 429, map[string]string{"RateLimit-Remaining": "0", "RateLimit-Reset": at(15 * time.Second)}, true, 15 * time.Second, "RateLimit-Reset", wordNone},
		{"stripe true", 500, map[string]string{"Stripe-Should-Retry": "true"}, false, 0, "", wordRetry},
		{"stripe false", 503, map[string]string{"Stripe-Should-Retry": "false"}, false, 0, "", wordNoRetry},
		{"x-should-retry, spaces and case", 409, map[string]string{"X-Should-Retry": " True "}, false, 0, "", wordRetry},
		{"should-retry garbage", 409, map[string]string{"X-Should-Retry": "yes"}, false, 0, "", wordNone},
		{"false wins over true", 500, map[string]string{"Stripe-Should-Retry": "true", "X-Should-Retry": "false"}, false, 0, "", wordNoRetry},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		a := readAdvice(c.status, h, now)
		hasWait := c.from != ""
		if a.limited != c.limited || a.hasWait != hasWait || a.wait != c.wait || a.from != c.from || a.word != c.word {
			t.Errorf("%s: got limited %v wait %v (%v) from %q word %v; want %v %v (%v) %q %v", c.name,
				a.limited, a.wait, a.hasWait, a.from, a.word, c.limited, c.wait, hasWait, c.from, c.word)
		}
		if hasWait && !a.reset.Equal(now.Add(c.wait)) {
			t.Errorf("%s: reset %v, want %v", c.name, a.reset, now.Add(c.wait))
		}
	}
}

// rateLimitSeeds are RateLimit field values, well-formed and hostile; they
// seed FuzzRateLimitField and run in TestParseRateLimitField.
var rateLimitSeeds = []struct {
	v         string
	exhausted bool
	wait      time.Duration
	ok        bool
}{
	{`"default";r=50;t=30`, false, 0, true},
	{`"default";r=0;t=30`, true, 30 * time.Second, true},
	{`"default";r=0`, true, 0, true},
	{`default;r=0;t=3`, true, 3 * time.Second, true},
	{`"a";r=0;t=3,"b";r=0;t=8`, true, 8 * time.Second, true},
	{`"a";r=0;t=3 ,	"b";r=5;t=80`, true, 3 * time.Second, true},
	{`"x;r=0;t=9";r=4;t=1`, false, 0, true},
	{`"esc\"aped";r=0;t=1`, true, time.Second, true},
	{`"default";r=0;t=60;pk=:cHsdsRa894==:;acme-burst=?1;note="n";d=1.5`, true, time.Minute, true},
	{`"default";r=0;t=999999999999999`, true, maxReset, true},
	{`"default";r=0;t=9999999999999999`, false, 0, false},
	{`"default";r=0;t=-5`, false, 0, false},
	{`"default";r=-1;t=5`, false, 0, false},
	{`"default";r=0;t=1.5`, false, 0, false},
	{`"default";t=5`, false, 0, false},
	{`"default";r=0;t=5,`, false, 0, false},
	{`"unterminated;r=0;t=5`, false, 0, false},
	{`"default";R=0;t=5`, false, 0, false},
	{`"default";r=0;;t=5`, false, 0, false},
	{`("inner" "list");r=0;t=5`, false, 0, false},
	{``, false, 0, false},
	{`   `, false, 0, false},
	{"\"default\";r=0;t=5\x00", false, 0, false},
	{strings.Repeat(`"p";r=1;t=1,`, 200) + `"p";r=0;t=1`, false, 0, false},
}

// TestParseRateLimitField: the seeds' expected readings.
func TestParseRateLimitField(t *testing.T) {
	for _, s := range rateLimitSeeds {
		exhausted, wait, ok := parseRateLimitField([]string{s.v})
		if exhausted != s.exhausted || wait != s.wait || ok != s.ok {
			t.Errorf("%q: got (%v, %v, %v), want (%v, %v, %v)", s.v, exhausted, wait, ok, s.exhausted, s.wait, s.ok)
		}
	}
	// A list split over two field lines is one list.
	if ex, wait, ok := parseRateLimitField([]string{`"a";r=5;t=1`, `"b";r=0;t=4`}); !ex || wait != 4*time.Second || !ok {
		t.Errorf("split list: (%v, %v, %v)", ex, wait, ok)
	}
}

// FuzzRateLimitField: any value parses in bounded time to a wait in
// [0, maxReset] or to nothing, never a panic.
func FuzzRateLimitField(f *testing.F) {
	for _, s := range rateLimitSeeds {
		f.Add(s.v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		exhausted, wait, ok := parseRateLimitField([]string{v})
		if wait < 0 || wait > maxReset || (!ok && (exhausted || wait != 0)) || (!exhausted && wait != 0) {
			t.Fatalf("%q: got (%v, %v, %v)", v, exhausted, wait, ok)
		}
	})
}

// FuzzReadAdvice: whatever the quota headers hold, the wait is within
// [0, maxReset], the reset is the answer's time plus the wait, and only a
// 403, 429 or 503 is ever read as a rate limit.
func FuzzReadAdvice(f *testing.F) {
	f.Add(403, "0", "1767323100", `"a";r=0;t=5`, "0", "9")
	f.Add(429, "0", "99999999999999999999", "", "", "")
	f.Add(503, "-0", "1767323100.9999999999", `x;r=0;t=1`, "0", "1e9")
	f.Add(500, "0", "5", "", "", "")
	now := newFakeClock().Now()
	f.Fuzz(func(t *testing.T, status int, remaining, reset, field, oldRemaining, oldReset string) {
		h := http.Header{"X-Ratelimit-Remaining": {remaining}, "X-Ratelimit-Reset": {reset},
			"Ratelimit": {field}, "Ratelimit-Remaining": {oldRemaining}, "Ratelimit-Reset": {oldReset}}
		a := readAdvice(status, h, now)
		if a.wait < 0 || a.wait > maxReset || (!a.hasWait && a.wait != 0) {
			t.Fatalf("wait %v (%v)", a.wait, a.hasWait)
		}
		if a.hasWait && !a.reset.Equal(now.Add(a.wait)) {
			t.Fatalf("reset %v for a wait of %v", a.reset, a.wait)
		}
		if a.limited && status != 403 && status != 429 && status != 503 {
			t.Fatalf("status %d read as a rate limit", status)
		}
	})
}

// TestRateLimitedStoppedByAttempts: a rate limit that lasts longer than the
// call's attempts ends with ErrRateLimited and ErrAttemptsExhausted; so does
// a call with NoRetry, after one attempt.
func TestRateLimitedStoppedByAttempts(t *testing.T) {
	limited := step{status: 429, wrote: 1, header: http.Header{"Retry-After": {"1"}}}
	d := &fakeDoer{script: []step{limited}}
	_, err, log := doCall(t, newTestRunner(d, newFakeClock()), &idempotentOp, "")
	if !errors.Is(err, ErrRateLimited) || !errors.Is(err, ErrAttemptsExhausted) || len(log) != 3 {
		t.Fatalf("err %v after %d attempts", err, len(log))
	}
	d = &fakeDoer{script: []step{limited}}
	_, err, log = doCall(t, newTestRunner(d, newFakeClock(), NoRetry()), &idempotentOp, "")
	if !errors.Is(err, ErrRateLimited) || len(log) != 1 {
		t.Fatalf("NoRetry: err %v after %d attempts", err, len(log))
	}
}

// TestShouldRetryFalseKeepsTheRule: "false" on a rate-limited answer ends
// the call with ErrRateLimited (its reset named, no limit reached), and on a
// keyed call's 409 with ErrInProgress: the server's word stops the retry
// without hiding what the answer meant.
func TestShouldRetryFalseKeepsTheRule(t *testing.T) {
	limited := step{status: 429, wrote: 1, header: http.Header{"Retry-After": {"4"}, "Stripe-Should-Retry": {"false"}}}
	d := &fakeDoer{script: []step{limited, ok200}}
	clk := newFakeClock()
	_, err, _ := doCall(t, newTestRunner(d, clk), &keyedOp, "k")
	var rl *RateLimitError
	if !errors.As(err, &rl) || rl.Limit != nil || !rl.Reset.Equal(clk.Now().Add(4*time.Second)) || d.count() != 1 {
		t.Fatalf("429 + false: %v after %d sends", err, d.count())
	}
	busy := step{status: 409, wrote: 1, header: http.Header{"Stripe-Should-Retry": {"false"}}}
	d = &fakeDoer{script: []step{busy, ok200}}
	_, err, _ = doCall(t, newTestRunner(d, newFakeClock()), &keyedOp, "k")
	if !errors.Is(err, ErrInProgress) || !errors.Is(err, ErrOutcomeUnknown) || d.count() != 1 {
		t.Fatalf("409 + false: %v after %d sends", err, d.count())
	}
}

// TestShouldRetryTrueKeepsRules: "true" never retries what a rule stops (a
// 401, a 412, a keyed call's 422) nor a replayed stored answer.
func TestShouldRetryTrueKeepsRules(t *testing.T) {
	yes := http.Header{"X-Should-Retry": {"true"}}
	cases := []struct {
		op     *Operation
		status int
		header http.Header
		want   error
	}{
		{&idempotentOp, 401, yes, ErrUnauthorized},
		{&idempotentOp, 412, yes, ErrPreconditionFailed},
		{&keyedOp, 422, yes, ErrKeyReuse},
		{&keyedOp, 409, http.Header{"X-Should-Retry": {"true"}, ReplayedHeader: {"true"}}, nil},
	}
	for _, c := range cases {
		d := &fakeDoer{script: []step{{status: c.status, wrote: 1, header: c.header}, ok200}}
		_, err, _ := doCall(t, newTestRunner(d, newFakeClock()), c.op, "k")
		if err == nil || d.count() != 1 || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%d: %v after %d sends", c.status, err, d.count())
		}
	}
}

// BenchmarkReadAdvice is the cost of reading the dialects on a failure
// answer (the engine reads them only for statuses of 400 or more): a plain
// 503, GitHub's primary limit, and a RateLimit field with three limits.
func BenchmarkReadAdvice(b *testing.B) {
	now := newFakeClock().Now()
	cases := []struct {
		name   string
		status int
		h      http.Header
	}{
		{"plain-503", 503, http.Header{"Content-Type": {"application/json"}}},
		{"github-403", 403, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1767323125"}, "X-Ratelimit-Limit": {"5000"}}},
		{"ratelimit-429", 429, http.Header{"Ratelimit": {`"burst";r=0;t=2, "daily";r=10;t=86400, "hourly";r=0;t=5;pk=:cHsdsRa894==:`}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				readAdvice(c.status, c.h, now)
			}
		})
	}
}

package runtime

import (
	"math"
	"time"
)

// backoff returns the full-jitter wait before retry n (n = 0 for the first
// retry): a uniform random time in [0, min(maxDelay, base * 2^n)). The jitter
// is kept at the cap too, so clients that failed together do not retry in
// lockstep. rnd returns a float in [0, 1).
func backoff(n int, base, maxDelay time.Duration, rnd func() float64) time.Duration {
	if base <= 0 {
		return 0
	}
	limit := maxDelay
	// base << n overflows past 62 doublings; stop doubling at the cap.
	if n < 62 && base <= maxDelay>>uint(n) {
		limit = base << uint(n)
	}
	if maxDelay <= 0 {
		limit = base
	}
	f := rnd()
	if f < 0 || f >= 1 || math.IsNaN(f) {
		f = 0
	}
	return time.Duration(f * float64(limit))
}

// nextWait is the wait before retry number n (from 0): the server's hint
// when it gave one (refused past MaxRetryAfter, when set), else full-jitter
// backoff. The attempt loop and a stream's reconnections share it.
func (p *Policy) nextWait(hint time.Duration, hasHint bool, n int, rnd func() float64) (time.Duration, WaitSource, error) {
	if !hasHint {
		return backoff(n, p.BaseDelay, p.MaxDelay, rnd), WaitBackoff, nil
	}
	if p.MaxRetryAfter > 0 && hint > p.MaxRetryAfter {
		return 0, WaitNone, ErrRetryAfterTooLong
	}
	return hint, WaitRetryAfter, nil
}

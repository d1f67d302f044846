package runtime

import (
	"math"
	"time"
)

// WithoutAdaptiveThrottle turns the adaptive throttle off for the Runner's
// calls: they neither consult nor feed the process-wide throttle of their
// host. For a process that is the only caller of a host it also protects
// in another way (a load generator, a health checker), and for tests that
// script failures and count the attempts.
func WithoutAdaptiveThrottle() Option {
	return runnerFunc(func(r *Runner) { r.throttles.settings.off = true })
}

// WithAdaptiveThrottle sets K of the adaptive throttle (DefaultThrottleK):
// calls are rejected locally, with ErrThrottled, with probability
// (requests - K*accepts) / (requests + 8), capped at 0.9, over the window.
// A smaller K throttles sooner (K 1 as soon as any request fails); a larger
// one lets more requests reach a failing host. K below 1 would throttle a
// healthy host and is raised to 1; a K that is not a finite number keeps
// the default. It also turns the throttle back on after
// WithoutAdaptiveThrottle.
func WithAdaptiveThrottle(k float64) Option {
	return runnerFunc(func(r *Runner) {
		r.throttles.settings.off = false
		if !math.IsNaN(k) && !math.IsInf(k, 0) {
			r.throttles.settings.k = max(k, 1)
		}
	})
}

// WithAdaptiveThrottleWindow sets how much history the adaptive throttle
// counts (DefaultThrottleWindow), in 100 slices. A rejected call counts as
// a request, so after an outage traffic comes back only as the window
// forgets it: a longer window remembers a longer failure, and the fleet
// takes about 1.8 windows (at K 2) to be back to full throughput once the
// host recovers. Zero or less keeps the default.
func WithAdaptiveThrottleWindow(d time.Duration) Option {
	return runnerFunc(func(r *Runner) {
		if d > 0 {
			r.throttles.settings.window = d
		}
	})
}

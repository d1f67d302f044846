package runtime

import (
	"context"
	"time"
)

// Clock is the engine's source of time. Tests inject a fake one so that
// backoff and Retry-After waits never sleep for real.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d, or until ctx is done, whichever comes first; it
	// returns ctx.Err() in the latter case.
	Sleep(ctx context.Context, d time.Duration) error
}

// systemClock is the real clock.
type systemClock struct{}

// Now returns time.Now().
func (systemClock) Now() time.Time { return time.Now() }

// Sleep waits on a timer and on ctx.
func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AfterFunc runs f in its own goroutine after d; stop cancels it.
func (systemClock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	return time.AfterFunc(d, f).Stop
}

// TimerClock is a Clock that can also run a function once a duration has
// passed on it. The engine's timers that cut a live response (the header
// deadline of an event stream or a download, the idle timeout between its
// reads) use it when the Runner's clock has it, so a test with a fake clock
// can let a stream run for minutes of virtual time; other clocks get real
// timers (time.AfterFunc).
type TimerClock interface {
	Clock
	// AfterFunc runs f once d has passed (f runs in its own goroutine or
	// on the goroutine that advances the clock); stop cancels it and
	// reports whether it did so before f ran.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// afterFunc runs f after d on clk's timers when it has them, else on a real
// timer.
func afterFunc(clk Clock, d time.Duration, f func()) (stop func() bool) {
	if tc, ok := clk.(TimerClock); ok {
		return tc.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f).Stop
}

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

package testutil

import (
	"context"
	"slices"
	"sync"
	"time"
)

// FakeClock is an idemrt.Clock that never sleeps: Sleep records the wait and
// moves time forward.
// It is also an idemrt.TimerClock: AfterFunc timers fire as Sleep or
// Advance moves time past them, so a test can run a stream for minutes of
// virtual time.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	timers []*fakeTimer
}

// fakeTimer is one AfterFunc: f runs once the clock reaches at.
type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

// NewFakeClock starts a FakeClock at a fixed instant.
func NewFakeClock() *FakeClock {
	return &FakeClock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Now is the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d and advances the clock by it.
func (c *FakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	c.Advance(d)
	return ctx.Err()
}

// Advance moves the clock forward by d and runs the timers now due, in
// the order they fall due, on the calling goroutine.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	kept := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, t)
		default:
			kept = append(kept, t)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		t.f()
	}
}

// AfterFunc runs f once the clock has advanced by d; stop cancels it and
// reports whether it had not run yet.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		return was
	}
}

// Waits are the durations slept so far.
func (c *FakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

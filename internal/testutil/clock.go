package testutil

import (
	"context"
	"sync"
	"time"
)

// FakeClock is an idemrt.Clock that never sleeps: Sleep records the wait and
// moves time forward.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
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
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

// Waits are the durations slept so far.
func (c *FakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

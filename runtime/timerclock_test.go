package runtime

import (
	"context"
	"sync"
	"time"
)

// timerClock is a fakeClock with timers (TimerClock): they fire when a
// test advances the clock past them, on the advancing goroutine. armed
// receives one value per timer started, when set.
type timerClock struct {
	*fakeClock
	tmu    sync.Mutex
	timers []*fakeTimer
	armed  chan struct{}
}

type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

func newTimerClock() *timerClock { return &timerClock{fakeClock: newFakeClock()} }

// AfterFunc starts a timer due d from now.
func (c *timerClock) AfterFunc(d time.Duration, f func()) func() bool {
	t := &fakeTimer{at: c.Now().Add(d), f: f}
	c.tmu.Lock()
	c.timers = append(c.timers, t)
	c.tmu.Unlock()
	if c.armed != nil {
		c.armed <- struct{}{}
	}
	return func() bool {
		c.tmu.Lock()
		defer c.tmu.Unlock()
		stopped := !t.done
		t.done = true
		return stopped
	}
}

// Sleep advances the clock, firing the timers that fall due.
func (c *timerClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := c.fakeClock.Sleep(ctx, d); err != nil {
		return err
	}
	c.fire()
	return nil
}

// Advance moves the clock by d and fires the timers that fall due.
func (c *timerClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	c.fire()
}

// fire runs the due timers, earliest first, outside the locks (a timer's
// function may start another).
func (c *timerClock) fire() {
	now := c.Now()
	for {
		c.tmu.Lock()
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.done && !t.at.After(now) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.tmu.Unlock()
			return
		}
		next.done = true
		c.tmu.Unlock()
		next.f()
	}
}

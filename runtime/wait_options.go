package runtime

import "time"

// WaitOption changes one wait of a generated Wait<Name> method.
type WaitOption interface{ applyWait(*waitConfig) }

// waitConfig is a wait's pace and the call options of its polls.
type waitConfig struct {
	delay, maxDelay, timeout time.Duration
	callOpts                 []CallOption
}

type waitFunc func(*waitConfig)

func (f waitFunc) applyWait(c *waitConfig) { f(c) }

// fill puts the defaults in the durations left unset and keeps the
// delay within its ceiling.
func (c *waitConfig) fill() {
	if c.delay <= 0 {
		c.delay = DefaultWaitDelay
	}
	if c.maxDelay <= 0 {
		c.maxDelay = max(DefaultWaitMaxDelay, c.delay)
	}
	if c.timeout <= 0 {
		c.timeout = DefaultWaitTimeout
	}
	c.maxDelay = max(c.maxDelay, c.delay)
}

// WithWaitTimeout sets how long the wait may last instead of the waiter's
// timeout (d <= 0 keeps it). A deadline of the wait's context still ends it
// when it is earlier.
func WithWaitTimeout(d time.Duration) WaitOption {
	return waitFunc(func(c *waitConfig) {
		if d > 0 {
			c.timeout = d
		}
	})
}

// WithWaitDelay sets the base pause between polls instead of the waiter's
// delay (d <= 0 keeps it); the ceiling rises to d when it is lower.
func WithWaitDelay(d time.Duration) WaitOption {
	return waitFunc(func(c *waitConfig) {
		if d > 0 {
			c.delay = d
		}
	})
}

// WithWaitMaxDelay sets the ceiling of the pause between polls instead of
// the waiter's maxDelay (d <= 0 keeps it).
func WithWaitMaxDelay(d time.Duration) WaitOption {
	return waitFunc(func(c *waitConfig) {
		if d > 0 {
			c.maxDelay = d
		}
	})
}

// WithWaitCallOptions gives opts to every poll's call (a class, a header,
// an attempt log...). WithResponse receives each poll's response in turn.
func WithWaitCallOptions(opts ...CallOption) WaitOption {
	return waitFunc(func(c *waitConfig) { c.callOpts = append(c.callOpts, opts...) })
}

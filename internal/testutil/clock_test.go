package testutil

import (
	"context"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// The runtime's live-response timers run on FakeClock's virtual time.
var _ idemrt.TimerClock = (*FakeClock)(nil)

// TestFakeClockTimers: timers fire when time passes them, in order, once;
// a stopped timer never fires.
func TestFakeClockTimers(t *testing.T) {
	c := NewFakeClock()
	var fired []string
	c.AfterFunc(10*time.Second, func() { fired = append(fired, "10s") })
	c.AfterFunc(3*time.Second, func() { fired = append(fired, "3s") })
	stop := c.AfterFunc(5*time.Second, func() { fired = append(fired, "5s") })
	if !stop() || stop() {
		t.Fatal("stop reports whether the timer was still pending")
	}
	c.Advance(2 * time.Second)
	if len(fired) != 0 {
		t.Fatalf("fired early: %v", fired)
	}
	_ = c.Sleep(context.Background(), 9*time.Second)
	c.Advance(time.Minute)
	if len(fired) != 2 || fired[0] != "3s" || fired[1] != "10s" {
		t.Fatalf("fired %v, want [3s 10s]", fired)
	}
}

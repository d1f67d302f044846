package idemsrv

import (
	"testing"
	"time"
)

// TestShedQueueFollowsServiceTime: the virtual queue is timed at the
// service time the server measures now, not the one it assumed when each
// refusal was handed out. Refusals made under the initial one-second guess
// must not keep later clients away for a minute once requests prove to
// take 10 ms.
func TestShedQueueFollowsServiceTime(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newShedder(2, func() time.Time { return clock })
	for range 2 {
		if _, ok := s.admit(); !ok {
			t.Fatal("a free slot was refused")
		}
	}
	// A burst before any request ended: 200 refusals at 0.5 s a place
	// would be 100 s; the cap holds them at 60.
	for range 200 {
		if wait, ok := s.admit(); ok || wait > 60 {
			t.Fatalf("admit() = %d, %v during the burst; want refused, at most 60 s", wait, ok)
		}
	}
	// Requests now take 10 ms: one ends and another is admitted every 10 ms
	// for one second, and the average comes down to 10 ms.
	for range 100 {
		clock = clock.Add(10 * time.Millisecond)
		s.done(clock.Add(-10 * time.Millisecond))
		if _, ok := s.admit(); !ok {
			t.Fatal("the slot just freed was refused")
		}
	}
	// At 5 ms a place, the burst drained in about a second: a refusal now
	// is next in line.
	if wait, ok := s.admit(); ok || wait != 1 {
		t.Errorf("admit() = %d, %v after the burst drained; want refused with 1 s", wait, ok)
	}
}

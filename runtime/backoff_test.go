package runtime

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestBackoffLimits(t *testing.T) {
	one := func() float64 { return math.Nextafter(1, 0) }
	base, cap := 100*time.Millisecond, 2*time.Second
	for n, want := range []time.Duration{100, 200, 400, 800, 1600, 2000, 2000} {
		got := backoff(n, base, cap, one)
		if got >= want*time.Millisecond || got < want*time.Millisecond*99/100 {
			t.Errorf("n=%d: max wait %v, want just under %v", n, got, want*time.Millisecond)
		}
	}
	if got := backoff(1000, base, cap, one); got >= cap || got < cap*99/100 {
		t.Errorf("huge n: %v, want just under the cap", got)
	}
	if got := backoff(3, base, cap, func() float64 { return 0 }); got != 0 {
		t.Errorf("full jitter must reach 0, got %v", got)
	}
	if got := backoff(3, base, cap, func() float64 { return 7 }); got != 0 {
		t.Errorf("a random source out of [0,1) must not stretch the wait, got %v", got)
	}
}

// TestBackoffJitterSpread: waits are spread uniformly over [0, limit), at the
// cap too, so clients that failed together do not come back together.
func TestBackoffJitterSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base, cap := 100*time.Millisecond, time.Second
	for _, n := range []int{2, 40} {
		limit := min(cap, base<<min(n, 20))
		var buckets [10]int
		const samples = 20000
		for range samples {
			d := backoff(n, base, cap, rng.Float64)
			if d < 0 || d >= limit {
				t.Fatalf("n=%d: %v outside [0, %v)", n, d, limit)
			}
			buckets[int(d*10/limit)]++
		}
		for i, b := range buckets {
			// Each tenth of the range gets 10% of the waits, within 1.5 points.
			if b < samples*85/1000 || b > samples*115/1000 {
				t.Errorf("n=%d: bucket %d holds %d of %d waits: not uniform", n, i, b, samples)
			}
		}
	}
}

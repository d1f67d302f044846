package runtime

import (
	"math"
	"sync/atomic"
)

// milli is the bucket's fixed-point scale: tokens are stored as thousandths
// in an atomic integer, so the hot path (a success refill on a full bucket)
// is one atomic load and no lock.
const milli = 1000

// bucket is the token bucket of one Runner and one Class.
type bucket struct {
	unlimited bool
	capacity  int64
	retry     int64
	timeout   int64
	refill    int64
	tokens    atomic.Int64
}

// toMilli converts a token amount, clamping negatives to zero.
func toMilli(f float64) int64 {
	if f <= 0 || math.IsNaN(f) {
		return 0
	}
	if f > math.MaxInt64/(2*milli) {
		return math.MaxInt64 / 2
	}
	return int64(math.Round(f * milli))
}

// newBucket returns a full bucket for b.
func newBucket(b Budget) *bucket {
	k := &bucket{
		unlimited: b.Unlimited,
		capacity:  toMilli(b.Capacity),
		retry:     toMilli(b.RetryCost),
		timeout:   toMilli(b.TimeoutCost),
		refill:    toMilli(b.SuccessRefill),
	}
	k.tokens.Store(k.capacity)
	return k
}

// take withdraws the cost of one retry if the bucket can pay it.
func (k *bucket) take(afterTimeout bool) bool {
	if k.unlimited {
		return true
	}
	cost := k.retry
	if afterTimeout {
		cost = k.timeout
	}
	for {
		t := k.tokens.Load()
		if t < cost {
			return false
		}
		if k.tokens.CompareAndSwap(t, t-cost) {
			return true
		}
	}
}

// charge withdraws the cost of a send that already happened (a transport
// replay): it cannot be refused, so the bucket only stops at zero.
func (k *bucket) charge() {
	if k.unlimited {
		return
	}
	for {
		t := k.tokens.Load()
		n := max(t-k.retry, 0)
		if k.tokens.CompareAndSwap(t, n) {
			return
		}
	}
}

// refund gives back the cost of one retry that take paid for and that was
// not sent after all (a hedge whose request editor failed).
func (k *bucket) refund() {
	if k.unlimited {
		return
	}
	for {
		t := k.tokens.Load()
		if k.tokens.CompareAndSwap(t, min(t+k.retry, k.capacity)) {
			return
		}
	}
}

// credit puts back the refill of one healthy answer.
func (k *bucket) credit() {
	if k.unlimited || k.refill == 0 {
		return
	}
	for {
		t := k.tokens.Load()
		if t >= k.capacity {
			return
		}
		if k.tokens.CompareAndSwap(t, min(t+k.refill, k.capacity)) {
			return
		}
	}
}

// left reports the tokens in the bucket (+Inf when unlimited).
func (k *bucket) left() float64 {
	if k.unlimited {
		return math.Inf(1)
	}
	return float64(k.tokens.Load()) / milli
}

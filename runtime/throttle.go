package runtime

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrThrottled ends a call the adaptive throttle rejected locally: the host
// has been failing most of this process's requests, so the call was not
// sent (or, for a retry, not resent). A call rejected before its first send
// sent nothing and spent no key: it may be made again later with the same
// key or a new one.
var ErrThrottled = errors.New("idemrt: throttled locally: the host is failing most of this process's requests (adaptive throttle)")

// The adaptive throttle's defaults and bounds (docs/runtime.md, "Adaptive
// throttle", says why each is what it is).
const (
	// DefaultThrottleK is K of the rejection formula: the host may fail up
	// to (K-1)/K of the requests before anything is rejected locally.
	DefaultThrottleK = 2.0
	// DefaultThrottleWindow is how much history the throttle counts. A
	// rejected call counts as a request, so after an outage the throttle
	// lets traffic back only as the window forgets it: the window bounds
	// the recovery time (about 1.8 windows at K 2 and the 0.9 cap).
	DefaultThrottleWindow = 4 * time.Second
	// throttleBins is the number of slices the window is counted in.
	throttleBins = 100
	// throttlePadding is added to the requests in the denominator: with
	// the SRE book's 1, a single failure would reject half of the next
	// calls of a quiet process; 8 is grpc-go's adaptive throttler's.
	throttlePadding = 8
	// throttleMaxReject caps the rejection probability: the share of calls
	// still sent during an outage are the probes that see the host
	// recover; without them recovery takes a time that grows with the
	// request rate (the window times the log of the requests in it).
	throttleMaxReject = 0.9
	// throttleMinRequests is the history below which nothing is rejected:
	// a process that makes a few calls is governed by its retry budget.
	throttleMinRequests = 20
	// maxThrottledHosts bounds the process-wide table of throttles; past
	// it, idle throttles are dropped, or else the one used longest ago.
	maxThrottledHosts = 1024
)

// throttleBin counts the requests and accepts of one slice of the window.
type throttleBin struct {
	requests, accepts int64
}

// throttle is the adaptive throttle of one host for the clients of the
// process that share its settings (Google SRE book, "Handling Overload":
// reject locally with probability (requests - K*accepts) / (requests +
// padding), counted over a sliding window).
type throttle struct {
	k   float64
	bin int64 // nanoseconds per slice

	mu                sync.Mutex
	ring              [throttleBins]throttleBin
	head              int64 // the newest slice's number (time / bin)
	requests, accepts int64 // sums over the ring

	// used is when the throttle was last asked or told about a request
	// (Unix nanoseconds): a full table evicts the one used longest ago.
	// evicted is set when it leaves the table, so that a client holding
	// it looks its host up again and shares the table's throttle.
	used    atomic.Int64
	evicted atomic.Bool
}

func newThrottle(k float64, window time.Duration) *throttle {
	return &throttle{k: k, bin: max(int64(window)/throttleBins, 1)}
}

// allow reports whether a request may be sent now. draw is called only
// when the throttle rejects with a probability above zero, so a quiet or
// healthy host costs no random number. A rejection counts as a request.
func (t *throttle) allow(now time.Time, draw func() float64) bool {
	t.used.Store(now.UnixNano())
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(now)
	p := t.rejectProbability()
	if p <= 0 || draw() >= p {
		return true
	}
	t.count(false)
	return false
}

// record counts a request the host answered: accepted when the answer is
// one that is not a sign of overload or failure (see accepted).
func (t *throttle) record(now time.Time, accepted bool) {
	t.used.Store(now.UnixNano())
	t.mu.Lock()
	t.advance(now)
	t.count(accepted)
	t.mu.Unlock()
}

func (t *throttle) count(accepted bool) {
	b := t.slice(t.head)
	b.requests++
	t.requests++
	if accepted {
		b.accepts++
		t.accepts++
	}
}

// rejectProbability is the formula over the window, capped.
func (t *throttle) rejectProbability() float64 {
	if t.requests < throttleMinRequests {
		return 0
	}
	p := (float64(t.requests) - t.k*float64(t.accepts)) / float64(t.requests+throttlePadding)
	return min(p, throttleMaxReject)
}

// advance moves the window to now, forgetting the slices that left it. A
// clock that went back a little keeps counting in the newest slice; one
// that went back more than the window starts the history anew (its past
// says nothing about the present).
func (t *throttle) advance(now time.Time) {
	n := now.UnixNano() / t.bin
	if n <= t.head && n > t.head-throttleBins {
		return
	}
	if n < t.head || n-t.head >= throttleBins {
		t.ring, t.requests, t.accepts = [throttleBins]throttleBin{}, 0, 0
		t.head = n
		return
	}
	for t.head < n {
		t.head++
		b := t.slice(t.head)
		t.requests -= b.requests
		t.accepts -= b.accepts
		*b = throttleBin{}
	}
}

// slice returns the counts of slice number n (negative before 1970, on a
// test's zero clock).
func (t *throttle) slice(n int64) *throttleBin {
	return &t.ring[(n%throttleBins+throttleBins)%throttleBins]
}

// idle reports whether the window has forgotten everything by now.
func (t *throttle) idle(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(now)
	return t.requests == 0
}

// accepted says whether an answered request counts as accepted by the host:
// anything but a 5xx, a 429 or a status the operation retries.
func accepted(op *Operation, status int) bool {
	return status < 500 && status != 429 && !op.Retryable.Contains(status)
}

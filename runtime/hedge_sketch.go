package runtime

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The latency sketch behind HedgePolicy{After: 0}: the recent p95 of one
// operation's answered sends (docs/runtime.md, "Hedged calls", says why
// these sizes).
const (
	// sketchSize is how many recent durations a sketch keeps: 128 int64s,
	// a kilobyte per operation, whatever the traffic.
	sketchSize = 128
	// sketchMinSamples is the history below which the sketch has no p95,
	// and a call is not hedged. The p95 of 100 is the sixth slowest: with
	// 1.5% of answers slow, six of the first hundred are (and the p95 is
	// the slow time itself, so the slow calls it should hedge are not) one
	// time in 200; the p95 of 32 is the second slowest, and two slow
	// answers in 32 happen one time in 12.
	sketchMinSamples = 100
	// sketchEvery is how often (in samples) the p95 is computed again:
	// sorting 128 durations costs about a microsecond, paid once per 16
	// sends; readers take the cached value with one atomic load.
	sketchEvery = 16
	// maxSketches bounds a Runner's table of sketches: generated clients
	// declare one Operation per method, so only a program that makes
	// Operations on the fly reaches it, and its new operations are then
	// not hedged with After 0.
	maxSketches = 1024
)

// latencySketch is a ring of an operation's recent send durations, with
// their p95 cached.
type latencySketch struct {
	mu    sync.Mutex
	ring  [sketchSize]time.Duration
	count int64
	p95   atomic.Int64
}

// add records the duration of one send: an answer, or a hedged round's
// loser at the time it was cancelled (a lower bound on its duration, above
// the hedge delay, so the p95 it moves is the one it would have moved).
func (k *latencySketch) add(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ring[k.count%sketchSize] = d
	k.count++
	if k.count < sketchMinSamples || (k.count%sketchEvery != 0 && k.count != sketchMinSamples) {
		return
	}
	n := min(k.count, sketchSize)
	var sorted [sketchSize]time.Duration
	copy(sorted[:], k.ring[:n])
	slices.Sort(sorted[:n])
	k.p95.Store(int64(sorted[(n*95+99)/100-1]))
}

// quantile is the recent p95, or 0 before sketchMinSamples sends.
func (k *latencySketch) quantile() time.Duration { return time.Duration(k.p95.Load()) }

// sketches is a Runner's latency sketches, by operation.
type sketches struct {
	m sync.Map // *Operation -> *latencySketch
	n atomic.Int64
}

// of returns op's sketch, made on first use, or nil when the table is full.
func (t *sketches) of(op *Operation) *latencySketch {
	if k, ok := t.m.Load(op); ok {
		return k.(*latencySketch)
	}
	if t.n.Load() >= maxSketches {
		return nil
	}
	k, loaded := t.m.LoadOrStore(op, new(latencySketch))
	if !loaded {
		t.n.Add(1)
	}
	return k.(*latencySketch)
}

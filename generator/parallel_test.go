package generator

import (
	"strings"
	"sync/atomic"
	"testing"
)

// TestParallelRunsEveryIndex checks that parallel calls fn once per index.
func TestParallelRunsEveryIndex(t *testing.T) {
	var seen [5]atomic.Int32
	parallel(len(seen), func(i int) { seen[i].Add(1) })
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Errorf("fn(%d) ran %d times, want 1", i, n)
		}
	}
}

// TestParallelRaisesPanicOnCaller checks that a panic on a worker goroutine
// reaches the caller (runJobs recovers it there as a generator bug).
func TestParallelRaisesPanicOnCaller(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "boom") {
			t.Errorf("recover() = %v, want the worker's panic", r)
		}
	}()
	parallel(3, func(i int) {
		if i == 1 {
			panic("boom")
		}
	})
}

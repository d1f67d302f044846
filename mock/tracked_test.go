package mock

import (
	"strconv"
	"testing"
)

// TestTrackedMapsAreBounded: a client sending a new key, resource path or
// counted fault on every request grows none of the maps past maxTracked;
// the value counted last is always there.
func TestTrackedMapsAreBounded(t *testing.T) {
	m := map[string]int{}
	for i := range 3 * maxTracked {
		k := strconv.Itoa(i)
		if n := bump(m, k); n != 1 || len(m) > maxTracked {
			t.Fatalf("after %d keys: count %d, %d entries", i+1, n, len(m))
		}
	}
	if bump(m, strconv.Itoa(3*maxTracked-1)) != 2 {
		t.Errorf("the last key's count was lost")
	}
}

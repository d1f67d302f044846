//go:build race

package composition_test

// raceEnabled: the race detector changes what allocates (sync.Pool drops
// its items), so allocation figures are checked without it.
const raceEnabled = true

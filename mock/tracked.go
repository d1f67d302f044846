package mock

// maxTracked bounds each map the mock keeps per distinct request value (the
// counters of *N header faults, resource versions, executions per key),
// so that a client sending a new value on every request cannot grow the
// mock's memory without end.
const maxTracked = 10_000

// bump adds one to m[k] and returns the new count. A new k in a map that
// holds maxTracked entries first evicts one entry at random (map iteration
// order): what was counted for it starts again from zero.
func bump(m map[string]int, k string) int {
	if _, ok := m[k]; !ok && len(m) >= maxTracked {
		for old := range m {
			delete(m, old)
			break
		}
	}
	m[k]++
	return m[k]
}

//go:build !race

package sdkjudge

// raceEnabled runs the driver under the race detector when this test runs
// under it.
const raceEnabled = false

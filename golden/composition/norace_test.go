//go:build !race

package composition_test

const raceEnabled = false

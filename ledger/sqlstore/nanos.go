package sqlstore

import (
	"math"
	"time"
)

// maxTime is the latest instant an int64 of Unix nanoseconds holds (April
// 2262).
var maxTime = time.Unix(0, math.MaxInt64)

// latest is t, or maxTime when t lies beyond it: a lease or expiry that far
// ahead is kept as "as late as the column can say", never wrapped around
// (time.UnixNano's result is undefined past 2262, and in practice a date in
// 1677 that expired the key as it was written).
func latest(t time.Time) time.Time {
	if t.After(maxTime) {
		return maxTime
	}
	return t
}

// nanos is t as the BIGINT the tables keep, saturated at maxTime.
func nanos(t time.Time) int64 { return latest(t).UnixNano() }

package runtime

import (
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// throttleSettings are a Runner's adaptive throttle options.
type throttleSettings struct {
	off    bool
	k      float64
	window time.Duration
}

// throttleKey names one process-wide throttle: a host (scheme and
// authority) and the settings of the clients that share it.
type throttleKey struct {
	scheme, host string
	k            float64
	window       time.Duration
}

// throttleTable is the process's throttles. It is global on purpose: the
// point of the throttle is that every client of the process talking to one
// failing host backs off together, where each client's retry budget cannot
// see the others'.
var throttleTable = struct {
	mu sync.Mutex
	m  map[throttleKey]*throttle
}{m: map[throttleKey]*throttle{}}

// lookupThrottle returns the throttle of key, making it when the table has
// none. A full table first drops its idle throttles; when none is idle it
// evicts the one used longest ago: a new host is the one a process most
// needs throttled (it may be the one in an outage), where the idlest entry
// is the one it needs least.
func lookupThrottle(key throttleKey, now time.Time) *throttle {
	tt := &throttleTable
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if t := tt.m[key]; t != nil {
		return t
	}
	if len(tt.m) >= maxThrottledHosts {
		for k, t := range tt.m {
			if t.idle(now) {
				delete(tt.m, k)
			}
		}
		if len(tt.m) >= maxThrottledHosts {
			evictIdlest(tt.m)
		}
	}
	t := newThrottle(key.k, key.window)
	t.used.Store(now.UnixNano())
	tt.m[key] = t
	return t
}

// evictIdlest removes from m the throttle used longest ago (the first of
// them in key order on a tie, so the choice does not hang on map order).
// A client that holds it looks its host up again at its next attempt
// (evicted), and shares the table's new one.
func evictIdlest(m map[throttleKey]*throttle) {
	var oldest throttleKey
	var oldestUse int64
	found := false
	for k, t := range m {
		use := t.used.Load()
		if !found || use < oldestUse || (use == oldestUse && keyBefore(k, oldest)) {
			oldest, oldestUse, found = k, use, true
		}
	}
	if found {
		m[oldest].evicted.Store(true)
		delete(m, oldest)
	}
}

// keyBefore orders throttle keys, for evictIdlest's ties.
func keyBefore(a, b throttleKey) bool {
	switch {
	case a.scheme != b.scheme:
		return a.scheme < b.scheme
	case a.host != b.host:
		return a.host < b.host
	case a.k != b.k:
		return a.k < b.k
	}
	return a.window < b.window
}

// hostThrottle is the throttle a Runner last used, with its host: a client
// talks to one host, so the table is consulted only when the host changes.
type hostThrottle struct {
	scheme, host string
	t            *throttle
}

// throttles is a Runner's handle on the process-wide table.
type throttles struct {
	settings throttleSettings
	last     atomic.Pointer[hostThrottle]
}

// forURL returns the throttle of u's host, or nil when throttling is off.
func (ts *throttles) forURL(u *url.URL, now time.Time) *throttle {
	if ts.settings.off || u == nil {
		return nil
	}
	if h := ts.last.Load(); h != nil && h.host == u.Host && h.scheme == u.Scheme && !h.t.evicted.Load() {
		return h.t
	}
	t := lookupThrottle(throttleKey{u.Scheme, u.Host, ts.settings.k, ts.settings.window}, now)
	if t != nil {
		ts.last.Store(&hostThrottle{u.Scheme, u.Host, t})
	}
	return t
}

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
// room, or nil.
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
			return nil
		}
	}
	t := newThrottle(key.k, key.window)
	tt.m[key] = t
	return t
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
	if h := ts.last.Load(); h != nil && h.host == u.Host && h.scheme == u.Scheme {
		return h.t
	}
	t := lookupThrottle(throttleKey{u.Scheme, u.Host, ts.settings.k, ts.settings.window}, now)
	if t != nil {
		ts.last.Store(&hostThrottle{u.Scheme, u.Host, t})
	}
	return t
}

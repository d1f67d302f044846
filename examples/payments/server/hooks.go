package server

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemgen/idemgen/internal/ctxtime"
)

// Hooks are fault injections for the end-to-end suite (examples/payments/e2e).
// They are test hooks: the server main enables them only from PAYMENTS_TEST_*
// environment variables, and production deployments leave them off.
type Hooks struct {
	// Enabled turns on the /_test/ endpoints: POST /_test/unavailable?for=D
	// &retry_after=S answers every API request 503 (with Retry-After: S when
	// given) for the duration D; GET /_test/stats reports the requests seen.
	Enabled bool
	// DropAfterCommit makes the Nth createOrder request (1-based) commit and
	// then lose its connection without any response.
	DropAfterCommit int
	// PauseAfterReserve makes createOrder stop this long after it reserved
	// the key and wrote its rows, before the ledger commits: the window in
	// which the suite kills the process.
	PauseAfterReserve time.Duration
}

type hookState struct {
	h        Hooks
	orders   atomic.Int64
	mu       sync.Mutex
	until    time.Time
	retryAft string
	arrivals []int64 // Unix nanos of every API request while hooks are on
}

func newHookState(h Hooks) *hookState { return &hookState{h: h} }

// unavailable records the request and answers 503 while the switch is on.
func (hs *hookState) unavailable(w http.ResponseWriter, r *http.Request) bool {
	now := time.Now()
	hs.mu.Lock()
	hs.arrivals = append(hs.arrivals, now.UnixNano())
	down, ra := now.Before(hs.until), hs.retryAft
	hs.mu.Unlock()
	if !down {
		return false
	}
	if ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	writeJSONProblem(w, http.StatusServiceUnavailable, "test hook: unavailable")
	return true
}

func (hs *hookState) setUnavailable(w http.ResponseWriter, r *http.Request) {
	d, err := time.ParseDuration(r.URL.Query().Get("for"))
	if err != nil {
		http.Error(w, "for: "+err.Error(), http.StatusBadRequest)
		return
	}
	ra := r.URL.Query().Get("retry_after")
	if _, err := strconv.Atoi(ra); ra != "" && err != nil {
		http.Error(w, "retry_after must be delta-seconds", http.StatusBadRequest)
		return
	}
	hs.mu.Lock()
	hs.until, hs.retryAft, hs.arrivals = time.Now().Add(d), ra, nil
	hs.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Stats is the body of GET /_test/stats.
type Stats struct {
	// Arrivals are the Unix-nanosecond arrival times of the API requests
	// since the last POST /_test/unavailable (or the start).
	Arrivals []int64 `json:"arrivals"`
}

func (hs *hookState) stats(w http.ResponseWriter, r *http.Request) {
	hs.mu.Lock()
	st := Stats{Arrivals: append([]int64{}, hs.arrivals...)}
	hs.mu.Unlock()
	writeJSON(w, http.StatusOK, st)
}

// dropAfterCommit wraps the ledger-protected createOrder: on the chosen
// request it lets the ledger commit (the ledger commits before it writes any
// byte), discards the response and closes the connection.
func (hs *hookState) dropAfterCommit(next http.Handler) http.Handler {
	if hs.h.DropAfterCommit <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hs.orders.Add(1) != int64(hs.h.DropAfterCommit) {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(discard{http.Header{}}, r)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	})
}

func (hs *hookState) pauseAfterReserve(ctx context.Context) error {
	return ctxtime.Sleep(ctx, hs.h.PauseAfterReserve)
}

type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}

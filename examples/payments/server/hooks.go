package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemgen/idemgen/internal/ctxtime"
	problemdetails "github.com/idemgen/idemgen/runtime/problem"
)

// Hooks are fault injections for the end-to-end suite (examples/payments/e2e).
// They are test hooks: the server main enables them only from PAYMENTS_TEST_*
// environment variables, and production deployments leave them off.
type Hooks struct {
	// Enabled turns on the /_test/ endpoints: POST /_test/unavailable?for=D
	// &retry_after=S answers every API request 503 (with Retry-After: S when
	// given) for the duration D; GET /_test/stats reports the requests seen.
	Enabled bool
	// DropAfterCommit makes the Nth CreateOrder execution (1-based) commit
	// and then lose its connection without any response.
	DropAfterCommit int
	// PauseAfterReserve makes CreateOrder stop this long after it wrote its
	// rows (the ledger reserved the key before it ran), before the ledger
	// commits: the window in which the suite kills the process.
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

// TestHooks wraps the API handler with the hooks that act on the HTTP
// exchange (the /_test/ endpoints, the unavailability switch, the dropped
// connection); with every hook off it returns api itself.
func (p *Payments) TestHooks(api http.Handler) http.Handler {
	hs := p.hooks
	api = hs.dropAfterCommit(api)
	if !hs.h.Enabled {
		return api
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /_test/unavailable", hs.setUnavailable)
	mux.HandleFunc("GET /_test/stats", hs.stats)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/_test/") {
			mux.ServeHTTP(w, r)
			return
		}
		if !hs.unavailable(w) {
			api.ServeHTTP(w, r)
		}
	})
}

// unavailable records the request and answers 503 while the switch is on.
func (hs *hookState) unavailable(w http.ResponseWriter) bool {
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
	// A generic problem (RFC 9457's about:blank): the outage is the hook's,
	// not one of idemgen's named refusals.
	problemdetails.Write(w, http.StatusServiceUnavailable, "about:blank", "test hook: unavailable")
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
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(st)
}

// afterCreateOrder runs in CreateOrder once its rows are written, before
// the ledger commits: it pauses (PauseAfterReserve) and marks the Nth
// execution's exchange to be dropped (DropAfterCommit). The handler marks
// the exchange rather than the wrapper matching a route, so the hook
// follows the operation wherever the generated server routes it.
func (hs *hookState) afterCreateOrder(ctx context.Context) error {
	if hs.h.DropAfterCommit > 0 && hs.orders.Add(1) == int64(hs.h.DropAfterCommit) {
		if m, ok := ctx.Value(dropKey{}).(*atomic.Bool); ok {
			m.Store(true)
		}
	}
	return ctxtime.Sleep(ctx, hs.h.PauseAfterReserve)
}

type dropKey struct{}

// dropAfterCommit lets a marked exchange run to its end (the ledger commits
// before it writes any byte), discards its response and closes the
// connection.
func (hs *hookState) dropAfterCommit(next http.Handler) http.Handler {
	if hs.h.DropAfterCommit <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		drop := new(atomic.Bool)
		next.ServeHTTP(&dropWriter{ResponseWriter: w, drop: drop}, r.WithContext(context.WithValue(r.Context(), dropKey{}, drop)))
		if !drop.Load() {
			return
		}
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	})
}

// dropWriter passes the response through until the exchange is marked,
// and discards it from then on.
type dropWriter struct {
	http.ResponseWriter
	drop *atomic.Bool
}

func (d *dropWriter) WriteHeader(status int) {
	if !d.drop.Load() {
		d.ResponseWriter.WriteHeader(status)
	}
}

func (d *dropWriter) Write(p []byte) (int, error) {
	if d.drop.Load() {
		return len(p), nil
	}
	return d.ResponseWriter.Write(p)
}

func (d *dropWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

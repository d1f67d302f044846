package ledger

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckStore is a Store whose only rows are stuck reservations; it counts
// what the sweeper does to it.
type stuckStore struct {
	Store
	mu       sync.Mutex
	stuck    []Record
	released []string
	purges   int
}

func (s *stuckStore) Stuck(context.Context, time.Time, int) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.stuck...), nil
}

func (s *stuckStore) Release(_ context.Context, id ID, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = append(s.released, id.Key+"/"+owner)
	s.stuck = nil
	return nil
}

func (s *stuckStore) Purge(context.Context, time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.purges++
	return 3, nil
}

func (s *stuckStore) Begin(context.Context) (*sql.Tx, error) { return nil, errors.New("unused") }

func TestSweeperRunReportsEachPass(t *testing.T) {
	st := &stuckStore{stuck: []Record{{ID: ID{Caller: "a", Operation: "op", Key: "k"}, LeaseOwner: "dead"}}}
	sw := &Sweeper{Store: st}
	ctx, cancel := context.WithCancel(context.Background())
	var reports []SweepReport
	sw.Run(ctx, time.Millisecond, func(rep SweepReport, err error) {
		if err != nil {
			t.Error(err)
		}
		reports = append(reports, rep)
		if len(reports) == 2 {
			cancel()
		}
	})
	if len(reports) != 2 {
		t.Fatalf("%d reports, want 2", len(reports))
	}
	first, second := reports[0], reports[1]
	if len(first.Stuck) != 1 || first.Released != 1 || first.Purged != 3 {
		t.Errorf("first pass = %+v, want 1 stuck, 1 released, 3 purged", first)
	}
	if len(second.Stuck) != 0 || second.Released != 0 {
		t.Errorf("second pass = %+v, want nothing stuck", second)
	}
	if len(st.released) != 1 || st.released[0] != "k/dead" {
		t.Errorf("released %v, want the dead owner's reservation", st.released)
	}
}

func TestNewValidates(t *testing.T) {
	st := &stuckStore{}
	caller := func(*http.Request) (string, error) { return "c", nil }
	// A Store without a Caller is valid: HandleRoute's routes may name
	// theirs (TestCallerPerRoute).
	bad := []Config{
		{Caller: caller},
		{Store: st, Caller: caller, Lease: time.Hour, TTL: time.Minute},
		// The default TTL (24h) is the one a longer lease must not outlive.
		{Store: st, Caller: caller, Lease: 48 * time.Hour},
	}
	for _, c := range bad {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted an invalid config", c)
		}
	}
	l, err := New(Config{Store: st, Caller: caller})
	if err != nil {
		t.Fatal(err)
	}
	if l.cfg.KeyHeader != "Idempotency-Key" || l.cfg.Lease != 30*time.Second || l.cfg.TTL != 24*time.Hour {
		t.Errorf("defaults = %q %v %v", l.cfg.KeyHeader, l.cfg.Lease, l.cfg.TTL)
	}
}

// TestForeverTTLIsClamped: a TTL or lease of math.MaxInt64 ("forever") is
// MaxTTL, whose expiry a store can represent (the suite's
// ForeverTTLKeepsTheKey shows the key then replays a year later), and a
// 409's Retry-After of that length is a positive number of seconds, not
// an overflow.
func TestForeverTTLIsClamped(t *testing.T) {
	caller := func(*http.Request) (string, error) { return "c", nil }
	l, err := New(Config{Store: &stuckStore{}, Caller: caller, TTL: math.MaxInt64, Lease: math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	if l.cfg.TTL != MaxTTL || l.cfg.Lease != MaxTTL {
		t.Errorf("TTL, Lease = %v, %v; want MaxTTL %v", l.cfg.TTL, l.cfg.Lease, MaxTTL)
	}
	if exp := time.Date(2161, 12, 31, 0, 0, 0, 0, time.UTC).Add(MaxTTL); exp.UnixNano() <= 0 || exp.Year() > 2262 {
		t.Errorf("an expiry written before 2162 is %v, past what int64 nanoseconds hold", exp)
	}
	w := httptest.NewRecorder()
	writeBusy(w, math.MaxInt64)
	if got := w.Header().Get("Retry-After"); got != "9223372037" {
		t.Errorf("Retry-After for math.MaxInt64 = %q, want 9223372037", got)
	}
}

func TestEmptyCallerIsRefused(t *testing.T) {
	// The store is never reached: its unimplemented methods would panic.
	l, err := New(Config{Store: &stuckStore{}, Caller: func(*http.Request) (string, error) { return "", nil }})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{}`))
	r.Header.Set("Idempotency-Key", "k")
	w := httptest.NewRecorder()
	l.Handle("createOrder", http.NotFoundHandler()).ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("status = %d, want 401", w.Code)
	}
}

func TestHandleRefusesUnstorableOperation(t *testing.T) {
	l, err := New(Config{Store: &stuckStore{}, Caller: func(*http.Request) (string, error) { return "c", nil }})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"", "create\x00Order", "\xff", strings.Repeat("o", 256)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Handle(%q) accepted a name no store can keep", op)
				}
			}()
			l.Handle(op, http.NotFoundHandler())
		}()
	}
}

// TestCallerPerRoute: a ledger without Config.Caller is valid; Handle
// refuses to wrap an operation then, HandleRoute with a Route.Caller does.
func TestCallerPerRoute(t *testing.T) {
	l, err := New(Config{Store: &stuckStore{}})
	if err != nil {
		t.Fatalf("New without Caller: %v", err)
	}
	h := http.NotFoundHandler()
	l.HandleRoute(Route{Operation: "op", Caller: func(*http.Request) (string, error) { return "c", nil }}, h)
	defer func() {
		if recover() == nil {
			t.Error("Handle without any Caller did not panic")
		}
	}()
	l.Handle("op", h)
}

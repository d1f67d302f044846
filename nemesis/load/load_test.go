package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestTargeterFreshKeyAndReference: every target is a keyed create with
// its own Idempotency-Key and its own business reference, so no request
// of a load run is a replay.
func TestTargeterFreshKeyAndReference(t *testing.T) {
	var n atomic.Int64
	tr := Targeter("http://127.0.0.1:1", "tenant-a", func() string { return fmt.Sprint("id", n.Add(1)) })
	keys, refs := map[string]bool{}, map[string]bool{}
	for range 3 {
		var tgt vegeta.Target
		if err := tr(&tgt); err != nil {
			t.Fatal(err)
		}
		if tgt.Method != http.MethodPost || tgt.URL != "http://127.0.0.1:1/orders" {
			t.Fatalf("target %s %s, want POST /orders", tgt.Method, tgt.URL)
		}
		if got := tgt.Header.Get("Authorization"); got != "Bearer tenant-a" {
			t.Errorf("Authorization %q", got)
		}
		var body struct {
			Reference   string `json:"reference"`
			AmountCents int64  `json:"amount_cents"`
		}
		if err := json.Unmarshal(tgt.Body, &body); err != nil || body.AmountCents < 1 {
			t.Fatalf("body %s: %v", tgt.Body, err)
		}
		keys[tgt.Header.Get("Idempotency-Key")] = true
		refs[body.Reference] = true
	}
	if len(keys) != 3 || len(refs) != 3 || keys[""] {
		t.Errorf("keys %v, references %v: want three distinct of each", keys, refs)
	}
}

// TestAttackCountsErrorsAndCapsClients: the attack counts every non-201
// answer as an error and never has more requests in flight than clients.
func TestAttackCountsErrorsAndCapsClients(t *testing.T) {
	var mu sync.Mutex
	inFlight, peak, seen := 0, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		seen++
		fail := seen%4 == 0
		mu.Unlock()
		mu.Lock()
		inFlight--
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	var n atomic.Int64
	tally := Attack(context.Background(), Targeter(srv.URL, "t", func() string { return fmt.Sprint(n.Add(1)) }), 3, 0, 100*time.Millisecond)
	if tally.Requests != seen || tally.Requests == 0 {
		t.Fatalf("tallied %d requests, server saw %d", tally.Requests, seen)
	}
	if tally.Errors != seen/4 {
		t.Errorf("errors %d, want %d (every fourth answer was 503)", tally.Errors, seen/4)
	}
	if peak > 3 {
		t.Errorf("%d requests in flight at once, want at most 3 clients", peak)
	}
}

func TestQuantileNearestRank(t *testing.T) {
	var tally Tally
	for i := 1; i <= 100; i++ {
		tally.Latencies = append(tally.Latencies, time.Duration(i)*time.Millisecond)
	}
	if got := tally.Quantile(0.99); got != 99*time.Millisecond {
		t.Errorf("p99 %v, want 99ms", got)
	}
	if got := tally.Quantile(0.50); got != 50*time.Millisecond {
		t.Errorf("p50 %v, want 50ms", got)
	}
	if got := (Tally{}).Quantile(0.99); got != 0 {
		t.Errorf("p99 of nothing %v", got)
	}
}

func TestTableAndBends(t *testing.T) {
	cells := []Cell{
		{Store: "sqlite", Ledger: true, Clients: 1, MaxRate: 300, Rate: 240, P50: 3 * time.Millisecond, P99: 5 * time.Millisecond, Requests: 2400},
		{Store: "sqlite", Ledger: true, Clients: 4, MaxRate: 500, Rate: 400, P50: 8 * time.Millisecond, P99: 20 * time.Millisecond, Requests: 4000},
		{Store: "sqlite", Ledger: true, Clients: 16, MaxRate: 510, Rate: 408, P50: 30 * time.Millisecond, P99: 150 * time.Millisecond, Requests: 4080, Errors: 2,
			Cores: 1.93, GeneratorCores: 0.4, CPUPerRequest: 4731 * time.Microsecond, FlushesPerRequest: -1},
		{Store: "postgres", Ledger: false, Clients: 1, MaxRate: 100, Rate: 80, P99: 12 * time.Millisecond, FlushesPerRequest: 0.25},
		{Store: "postgres", Ledger: false, Clients: 4, MaxRate: 390, Rate: 312, P99: 13 * time.Millisecond},
	}
	var b strings.Builder
	if err := WriteTable(&b, cells); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2+len(cells) {
		t.Fatalf("%d lines, want a header, a rule and %d rows:\n%s", len(lines), len(cells), b.String())
	}
	if want := "| sqlite | on | 16 | 510 | 408 | 408 | 30.0 ms | 150 ms | 2 / 4080 | 1.93 (0.40) | 4731 µs | - |"; lines[4] != want {
		t.Errorf("row\n%s\nwant\n%s", lines[4], want)
	}
	if !strings.HasSuffix(lines[5], "| 0.25 |") {
		t.Errorf("row %s: want 0.25 WAL flushes per request", lines[5])
	}
	bends := Bends(cells)
	want := []string{
		"sqlite, ledger on: bends at 4 clients: 4 -> 16 clients gives x1.02 req/s (500 -> 510) while p99 goes 20.0 ms -> 150 ms",
		"postgres, ledger off: no bend up to 4 clients (100 -> 390 req/s)",
	}
	if strings.Join(bends, "\n") != strings.Join(want, "\n") {
		t.Errorf("bends\n%s\nwant\n%s", strings.Join(bends, "\n"), strings.Join(want, "\n"))
	}
}

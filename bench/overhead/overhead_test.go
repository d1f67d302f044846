package overhead

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/idemgen/idemgen/bench/internal/cpuclock"

	_ "github.com/idemgen/idemgen/internal/testutil"
)

// wantTotal is the total in orderJSON.
const wantTotal = 8847

// TestClientsAgree proves that every contender makes the request the spec
// describes and decodes the answer, so the benchmarks time equal work, and
// that each reuses one kept-alive connection, so they time calls, not dials.
func TestClientsAgree(t *testing.T) {
	var conns atomic.Int32
	srv := newServer(t, func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	})
	ctx := context.Background()
	for _, c := range newClients(t, srv) {
		before := conns.Load()
		for range 3 {
			checkTotal(t, c.name+" create", func() (int64, error) { return c.create(ctx, uuid.NewString()) })
			checkTotal(t, c.name+" get", func() (int64, error) { return c.get(ctx) })
		}
		if n := conns.Load() - before; n != 1 {
			t.Errorf("%s opened %d connections for 6 sequential calls, want 1", c.name, n)
		}
	}
}

func checkTotal(t *testing.T, what string, call func() (int64, error)) {
	t.Helper()
	total, err := call()
	if err != nil || total != wantTotal {
		t.Fatalf("%s = %d, %v; want %d, nil", what, total, err, wantTotal)
	}
}

// BenchmarkCreateOrder is the keyed JSON POST. Every contender gets a fresh
// key per call from the benchmark loop (the caller's job with the peers).
func BenchmarkCreateOrder(b *testing.B) {
	benchEach(b, func(ctx context.Context, c client) (int64, error) { return c.create(ctx, uuid.NewString()) })
}

// BenchmarkGetOrder is the GET.
func BenchmarkGetOrder(b *testing.B) {
	benchEach(b, func(ctx context.Context, c client) (int64, error) { return c.get(ctx) })
}

// benchEach runs call once per iteration for every contender, as the
// sub-benchmarks floor, idemgen, oapi-codegen and ogen.
func benchEach(b *testing.B, call func(context.Context, client) (int64, error)) {
	srv := newServer(b, nil)
	ctx := context.Background()
	for _, c := range newClients(b, srv) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuclock.Used()
			for b.Loop() {
				if total, err := call(ctx, c); err != nil || total != wantTotal {
					b.Fatal(errors.Join(err, errors.New("wrong total")))
				}
			}
			b.ReportMetric(float64(cpuclock.Used()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

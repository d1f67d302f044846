package large

import (
	"context"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/idemgen/idemgen/bench/internal/cpuclock"
	_ "github.com/idemgen/idemgen/internal/testutil"
)

// TestLargeClientsAgree: every contender decodes all 100 items with the
// right checksum, so the benchmarks time equal work.
func TestLargeClientsAgree(t *testing.T) {
	a := loadAnswers(t)
	srv := newServer(t, a)
	for _, set := range benchSets(t, srv, a) {
		for _, c := range set.contenders {
			n, sum, err := c.call(context.Background())
			if err != nil || n != items || sum != set.sum {
				t.Errorf("%s %s: %d items, sum %d, %v; want %d, %d", set.name, c.name, n, sum, err, items, set.sum)
			}
		}
	}
}

// BenchmarkGitHubRepos: GET /orgs/{org}/repos answering 100 repositories.
func BenchmarkGitHubRepos(b *testing.B) { benchSet(b, "GitHubRepos") }

// BenchmarkStripeCharges: GET /v1/charges answering 100 charges.
func BenchmarkStripeCharges(b *testing.B) { benchSet(b, "StripeCharges") }

type set struct {
	name       string
	body       []byte
	sum        int64
	contenders []contender
}

func benchSets(tb testing.TB, srv *httptest.Server, a answers) []set {
	gh, err := githubContenders(srv)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := stripeContenders(srv)
	if err != nil {
		tb.Fatal(err)
	}
	return []set{{"GitHubRepos", a.repos, a.reposSum, gh}, {"StripeCharges", a.charges, a.chargesSum, st}}
}

// benchSet runs every contender of one set as a sub-benchmark. MB/s is of
// the answer's body; allocs/object and B/object divide the allocations of
// the whole call (client, server, HTTP) by the 100 items.
func benchSet(b *testing.B, name string) {
	a := loadAnswers(b)
	srv := newServer(b, a)
	for _, s := range benchSets(b, srv, a) {
		if s.name != name {
			continue
		}
		for _, c := range s.contenders {
			b.Run(c.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(s.body)))
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				cpu0 := cpuclock.Used()
				for b.Loop() {
					if n, sum, err := c.call(context.Background()); err != nil || n != items || sum != s.sum {
						b.Fatalf("%d items, sum %d, %v", n, sum, err)
					}
				}
				b.ReportMetric(float64(cpuclock.Used()-cpu0)/float64(b.N), "cpu-ns/op")
				runtime.ReadMemStats(&m1)
				per := float64(b.N) * items
				b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/per, "allocs/object")
				b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/per, "B/object")
			})
		}
	}
}
